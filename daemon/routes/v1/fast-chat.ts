import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayRuntime } from '../../../core/gateway/runtime.ts';
import type { CredentialDeps } from '../../../core/credentials/service.ts';
import type { Principal } from '../../../core/credentials/types.ts';
import type { Core } from '../../../core/index.ts';
import { bearerAuth } from '../../http/bearer.ts';
import { tooLarge } from '../../http/limits.ts';
import { toAppError } from '../../http/errors.ts';
import { hostPolicy } from '../../host-check.ts';
import { parseJsonText, requireJsonContentType } from '../../http/json-body.ts';
import { answerChat, type ChatAnswer } from './chat.ts';
import { SSE_HEADERS } from './sse.ts';
import { writeChatStream } from '../../sse-writer.ts';
import { errorBody, errorHeaders, logServerError, recordRequest, REQUEST_ID_HEADER, requestIdFor } from '../../http/envelope.ts';
import type { FastLane } from '../../http/fast-lane.ts';
import { readBody, send } from '../../http/node-io.ts';
import { redactPath } from '../../http/redact-path.ts';

const PATH = '/api/v1/chat/completions';
const LOGGED_PATH = redactPath(PATH);
// Hono's access-log `route` by how far a request got.
const AT_APP = '/*';
const AT_V1 = '/api/v1/*';

/**
 * Chat without Hono's per-call cost (docs/architecture.md).
 * Same functions, same answers: http-fast-chat.test.ts compares the two.
 */
export function chatLane(core: Core, rt: GatewayRuntime, creds: CredentialDeps): FastLane {
  const authenticate = bearerAuth(core, creds, 'member');
  const hostCheck = hostPolicy(core.config);
  const limit = core.config.SERVICE_GATEWAY_BODY_LIMIT_BYTES;
  const log = core.log;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const start = performance.now();
    const h = pickHeaders(req.rawHeaders);
    const requestId = requestIdFor(h.requestId);
    let route = AT_APP;
    let rate: Record<string, string> | undefined;
    const done = (status: number) => recordRequest(core, 'POST', LOGGED_PATH, route, PATH, status, start, requestId);
    const ac = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) ac.abort('Client connection prematurely closed.');
    });
    let principal: Principal | undefined;
    let answer: ChatAnswer | undefined;
    let failure: Error | undefined;
    try {
      // As Hono's host guard: before the body limit.
      const verdict = hostCheck({ method: 'POST', path: PATH, host: h.host, forwardedHost: h.forwardedHost, origin: h.origin });
      if (typeof verdict !== 'string') throw verdict;
      if (h.contentLength !== undefined && Number(h.contentLength) > limit) throw tooLarge(limit);
      route = AT_V1;
      principal = await authenticate(h.authorization);
      route = PATH;
      const t0 = performance.now();
      requireJsonContentType(h.contentType);
      const body = parseJsonText(await readBody(req, limit));
      answer = await answerChat(rt, principal, body, ac.signal, t0, (x) => (rate = x), requestId);
    } catch (thrown) {
      failure = thrown instanceof Error ? thrown : new Error('non-Error value thrown', { cause: thrown });
    }
    // As /api/v1: a known key's answers carry rate headers.
    if (principal && !rate) {
      try {
        rate = await rt.quota.headersFor(principal);
      } catch (thrown) {
        failure = thrown instanceof Error ? thrown : new Error('non-Error value thrown', { cause: thrown });
        answer = undefined;
      }
    }
    if (failure || !answer) {
      const e = toAppError(failure);
      logServerError(log, failure, e, requestId);
      const headers = errorHeaders(e);
      if (rate) Object.assign(headers, rate);
      headers[REQUEST_ID_HEADER] = requestId;
      send(req, res, e.status, headers, errorBody(true, e, requestId));
      done(e.status);
      return;
    }
    if (!answer.stream) {
      const headers = { 'content-type': 'application/json', ...answer.headers, ...rate, [REQUEST_ID_HEADER]: requestId };
      send(req, res, 200, headers, answer.raw ?? JSON.stringify(answer.completion));
      done(200);
      return;
    }
    res.writeHead(200, { ...SSE_HEADERS, ...answer.headers, ...rate, [REQUEST_ID_HEADER]: requestId });
    // Headers leave this turn: the client sees 200 while the model thinks.
    const flush = setImmediate(flushHeaders, res);
    // Logged after this turn: a first chunk in hand leaves before them.
    setImmediate(done, 200);
    await writeChatStream(res, answer.chunks, flush);
  }

  return (req, res) => {
    if (req.method !== 'POST') return false;
    const url = req.url;
    if (url !== PATH && !(url !== undefined && url.startsWith(PATH) && url.charCodeAt(PATH.length) === 63 /* ? */)) return false;
    handle(req, res).catch((err: unknown) => {
      log.error('unhandled error', { error: err });
      res.destroy();
    });
    return true;
  };
}

function flushHeaders(res: ServerResponse): void {
  if (!res.writableEnded && !res.destroyed) res.flushHeaders();
}

/** Repeated headers joined with ", ", as Web Headers do. */
function pickHeaders(raw: string[]) {
  let authorization: string | undefined;
  let contentType: string | undefined;
  let contentLength: string | undefined;
  let requestId: string | undefined;
  let host: string | undefined;
  let origin: string | undefined;
  let forwardedHost: string | undefined;
  const join = (a: string | undefined, v: string) => (a === undefined ? v : `${a}, ${v}`);
  for (let i = 0; i < raw.length; i += 2) {
    const k = raw[i]!;
    const n = k.length;
    if (n !== 13 && n !== 12 && n !== 14 && n !== 4 && n !== 6 && n !== 16) continue;
    const name = k.toLowerCase();
    if (name === 'authorization') authorization = join(authorization, raw[i + 1]!);
    else if (name === 'content-type') contentType = join(contentType, raw[i + 1]!);
    else if (name === 'content-length') contentLength = join(contentLength, raw[i + 1]!);
    else if (name === REQUEST_ID_HEADER) requestId = join(requestId, raw[i + 1]!);
    else if (name === 'host') host = join(host, raw[i + 1]!);
    else if (name === 'origin') origin = join(origin, raw[i + 1]!);
    else if (name === 'x-forwarded-host') forwardedHost = join(forwardedHost, raw[i + 1]!);
  }
  return { authorization, contentType, contentLength, requestId, host, origin, forwardedHost };
}
