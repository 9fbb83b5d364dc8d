import { randomFillSync } from 'node:crypto';
import type { AppError } from '../../core/kernel/errors.ts';
import type { Logger } from '../../core/kernel/log.ts';
import type { Metrics } from '../../core/kernel/metrics/registry.ts';

/**
 * What every answer carries, whichever stack wrote it: the Hono middleware (middleware/envelope.ts)
 * and the node:http fast lane (fast-lane.ts, routes/v1/fast-chat.ts) both call these, over plain values.
 */

export const REQUEST_ID_HEADER = 'x-request-id';

// Conservative on purpose: the id lands in logs and response headers, so nothing that could split a
// log line, inject a header or smuggle markup is kept; a proxy's UUID or trace id passes.
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function isValidRequestId(value: string | undefined | null): value is string {
  return typeof value === 'string' && VALID_REQUEST_ID.test(value);
}

// 16 random bytes per id (as many as a UUID's), hex: `req_` + 32 characters, from a buffer
// refilled 256 ids at a time. Not secrets: ids only need to be unique.
const ID_BYTES = 16;
const ids = Buffer.alloc(ID_BYTES * 256);
let nextId = ids.length;

export function newRequestId(): string {
  if (nextId === ids.length) {
    randomFillSync(ids);
    nextId = 0;
  }
  const hex = ids.toString('hex', nextId, nextId + ID_BYTES);
  nextId += ID_BYTES;
  return 'req_' + hex;
}

/** A valid incoming `x-request-id` is kept (a proxy's id ties its logs to ours), else a new one. */
export function requestIdFor(incoming: string | undefined): string {
  return isValidRequestId(incoming) ? incoming : newRequestId();
}

// Unknown methods would be unbounded label values: keep the standard ones.
const STANDARD_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The HTTP metric and the access line of a finished request. `path` must already be fit for the log
 * (redact-path.ts, no query string); `route` is the access line's, `template` the metric's.
 */
export function recordRequest(
  to: { log: Logger; metrics: Metrics },
  method: string,
  path: string,
  route: string | null,
  template: string,
  status: number,
  startedAt: number,
  requestId: string,
  origin?: string,
): void {
  const ms = performance.now() - startedAt;
  const series = to.metrics.http(STANDARD_METHODS.has(method) ? method : 'OTHER', template, status);
  series.count.inc();
  series.duration.observe(ms / 1000);
  const fields: Record<string, unknown> = { method, path, route, status, durationMs: Math.round(ms * 100) / 100, requestId };
  if (origin !== undefined) fields.origin = origin;
  if (status >= 500) to.log.warn('request', fields);
  else to.log.info('request', fields);
}

/** OpenAI's error `type` for a status, so SDKs raise the matching exception class. */
function openAiType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** DESIGN.md's error model: OpenAI's shape on the gateway (/api/v1), the app shape elsewhere. */
export function errorPayload(gateway: boolean, e: AppError, requestId: string | undefined): unknown {
  return gateway
    ? { error: { message: e.message, type: e.type ?? openAiType(e.status), param: e.field ?? null, code: e.code } }
    : { error: { code: e.code, message: e.message, ...(e.field === undefined ? {} : { field: e.field }), ...(e.uniformBody ? {} : { requestId }) } };
}

/** The error answer's body text. */
export function errorBody(gateway: boolean, e: AppError, requestId: string | undefined): string {
  return JSON.stringify(errorPayload(gateway, e, requestId));
}

/** The error answer's own headers (lower-case names); the caller adds rate and request id. */
export function errorHeaders(e: AppError): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const k in e.headers) headers[k.toLowerCase()] = e.headers[k]!;
  return headers;
}

/** A 5xx goes to the log with its cause (and stack); the client gets only the code and request id. */
export function logServerError(log: Logger, err: unknown, e: AppError, requestId: string | undefined): void {
  if (e.status < 500) return;
  log.error(e.kind === 'unexpected' ? 'unhandled error' : e.message, {
    requestId,
    code: e.code,
    error: e.kind === 'unexpected' ? err : (e.cause ?? err),
  });
}
