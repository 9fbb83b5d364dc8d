import type { IncomingMessage, ServerResponse } from 'node:http';
import { cachedFile, contentTypeOf, loadFile, previewTarget, type PreviewDeps, type PreviewFile } from '../../core/apps/preview.ts';
import type { Core } from '../../core/index.ts';
import { recordRequest, REQUEST_ID_HEADER, requestIdFor } from '../http/envelope.ts';
import { redactPath } from '../http/redact-path.ts';

/**
 * The preview origin (docs/preview.md); cookies are never read or set.
 * Even a 404 carries the sandbox CSP: an opaque origin.
 */

const SECURITY_HEADERS = {
  'content-security-policy': 'sandbox allow-scripts allow-forms allow-popups allow-modals',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'cross-origin',
  // A link expires: no cache may keep serving its files after that.
  'cache-control': 'no-store',
} as const;

/** The same bytes for every failure; the request id is a header. */
export const PREVIEW_NOT_FOUND = JSON.stringify({ error: { code: 'not_found', message: 'Not found.' } });
const NOT_FOUND_LENGTH = String(Buffer.byteLength(PREVIEW_NOT_FOUND));
const UNAVAILABLE = JSON.stringify({ error: { code: 'store_unavailable', message: 'The preview could not be read; retry shortly.' } });
const ROUTE = '/p/:token/*';

export type PreviewHandler = (req: IncomingMessage, res: ServerResponse) => void;

export function previewHandler(core: Core, deps: PreviewDeps): PreviewHandler {
  const { log } = core;

  return (req, res) => {
    const start = performance.now();
    const h = pickHeaders(req.rawHeaders);
    const requestId = requestIdFor(h.requestId);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const method = req.method ?? 'GET';

    const finish = (status: number, route: string | null) =>
      recordRequest(core, method, redactPath(path), route, route ?? 'unmatched', status, start, requestId, 'preview');
    const notFound = (route: string | null) => {
      res.writeHead(404, { ...SECURITY_HEADERS, 'content-type': 'application/json', 'content-length': NOT_FOUND_LENGTH, [REQUEST_ID_HEADER]: requestId, ...(h.hasBody ? { connection: 'close' } : {}) });
      res.end(PREVIEW_NOT_FOUND);
      finish(404, route);
    };

    const send = (file: PreviewFile) => {
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'content-type': contentTypeOf(file.path),
        'content-length': String(file.content.length),
        // The opaque origin's module scripts need CORS; no credentials, and the token grants reading.
        'access-control-allow-origin': '*',
        [REQUEST_ID_HEADER]: requestId,
        ...(h.hasBody ? { connection: 'close' } : {}),
      });
      res.end(file.content); // HEAD: node:http sends no body
      finish(200, ROUTE);
    };

    const slash = path.startsWith('/p/') ? path.indexOf('/', 3) : -1;
    if ((method !== 'GET' && method !== 'HEAD') || slash <= 3) return notFound(null);
    const target = previewTarget(deps, path.slice(3, slash), path.slice(slash + 1));
    if (!target) return notFound(ROUTE);
    const hit = cachedFile(deps, target);
    if (hit) return send(hit);
    loadFile(deps, target).then(
      (file) => (file ? send(file) : notFound(ROUTE)),
      (err: unknown) => {
        log.error('preview read failed', { requestId, error: err });
        res.writeHead(503, { ...SECURITY_HEADERS, 'content-type': 'application/json', 'retry-after': '1', [REQUEST_ID_HEADER]: requestId, connection: 'close' });
        res.end(UNAVAILABLE);
        finish(503, ROUTE);
      },
    );
  };
}

/** From the raw list: req.headers would build an object per request. A body closes the connection. */
function pickHeaders(raw: readonly string[]): { requestId: string | undefined; hasBody: boolean } {
  let requestId: string | undefined;
  let hasBody = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 12 && name.toLowerCase() === REQUEST_ID_HEADER) requestId = raw[i + 1];
    else if (name.length === 14 && name.toLowerCase() === 'content-length') hasBody ||= raw[i + 1] !== '0';
    else if (name.length === 17 && name.toLowerCase() === 'transfer-encoding') hasBody = true;
  }
  return { requestId, hasBody };
}
