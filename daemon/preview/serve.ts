import type { IncomingMessage, ServerResponse } from 'node:http';
import { cachedFile, contentTypeOf, loadFile, previewTarget, type PreviewDeps, type PreviewFile } from '../../core/apps/preview.ts';
import type { Core } from '../../core/index.ts';
import { redactPath } from '../middleware/redact-path.ts';
import { isValidRequestId, newRequestId, REQUEST_ID_HEADER } from '../middleware/request-id.ts';

/**
 * The preview origin (DESIGN.md "Generated apps and the preview origin"), on plain node:http: GET
 * and HEAD of `/p/{token}/{path}` serve one file of one app version; everything else is the same
 * 404. Cookies are never read or set. Every answer carries the sandbox CSP, so even a 404 page
 * runs in an opaque origin without storage or reach into the app origin.
 */

const SECURITY_HEADERS = {
  'content-security-policy': 'sandbox allow-scripts allow-forms allow-popups allow-modals',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'cross-origin',
  // A link expires: no cache may keep serving its files after that.
  'cache-control': 'no-store',
} as const;

/** One body for every failure, byte for byte (no request id in it; the header has it). */
export const PREVIEW_NOT_FOUND = JSON.stringify({ error: { code: 'not_found', message: 'Not found.' } });
const NOT_FOUND_LENGTH = String(Buffer.byteLength(PREVIEW_NOT_FOUND));
const UNAVAILABLE = JSON.stringify({ error: { code: 'store_unavailable', message: 'The preview could not be read; retry shortly.' } });
const ROUTE = '/p/:token/*';

export type PreviewHandler = (req: IncomingMessage, res: ServerResponse) => void;

export function previewHandler(core: Core, deps: PreviewDeps): PreviewHandler {
  const { log, metrics } = core;

  return (req, res) => {
    const start = performance.now();
    const h = pickHeaders(req.rawHeaders);
    const requestId = isValidRequestId(h.requestId) ? h.requestId : newRequestId();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const method = req.method ?? 'GET';

    const finish = (status: number, route: string | null) => {
      const ms = performance.now() - start;
      const series = metrics.http(METHODS.has(method) ? method : 'OTHER', route ?? 'unmatched', status);
      series.count.inc();
      series.duration.observe(ms / 1000);
      const fields = { method, path: redactPath(path), route, status, durationMs: Math.round(ms * 100) / 100, requestId, origin: 'preview' };
      if (status >= 500) log.warn('request', fields);
      else log.info('request', fields);
    };
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
        // Module scripts and fetches of the app's own files come from its opaque origin (Origin:
        // null) and need CORS; no credentials are ever allowed, and the token already grants reading.
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

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The two things read from the request's headers, from the raw list (req.headers would build an
 * object of all of them on every request). A body is never read: the connection closes after it. */
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
