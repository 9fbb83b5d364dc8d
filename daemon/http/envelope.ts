import { randomFillSync } from 'node:crypto';
import type { AppError } from '../../core/kernel/errors.ts';
import type { Logger } from '../../core/kernel/log.ts';
import type { Metrics } from '../../core/kernel/metrics/registry.ts';

/** What every answer carries: both Hono and the node:http fast lane call these. */

export const REQUEST_ID_HEADER = 'x-request-id';

// Lands in logs and headers: nothing that could split or inject.
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function isValidRequestId(value: string | undefined | null): value is string {
  return typeof value === 'string' && VALID_REQUEST_ID.test(value);
}

// UUID-sized, 256 per refill: unique, not secret.
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

/** A valid incoming id is kept: a proxy's id ties its logs to ours. */
export function requestIdFor(incoming: string | undefined): string {
  return isValidRequestId(incoming) ? incoming : newRequestId();
}

// Unknown methods would be unbounded label values: keep the standard ones.
const STANDARD_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** `path` redacted, no query; `route` for the log, `template` for the metric. */
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

/** OpenAI's shape on the gateway (/api/v1), the app's elsewhere (DESIGN.md). */
export function errorPayload(gateway: boolean, e: AppError, requestId: string | undefined): unknown {
  return gateway
    ? { error: { message: e.message, type: e.type ?? openAiType(e.status), param: e.field ?? null, code: e.code } }
    : { error: { code: e.code, message: e.message, ...(e.field === undefined ? {} : { field: e.field }), ...(e.uniformBody ? {} : { requestId }) } };
}

/** The error answer's body text. */
export function errorBody(gateway: boolean, e: AppError, requestId: string | undefined): string {
  return JSON.stringify(errorPayload(gateway, e, requestId));
}

/** Lower-case names; the caller adds rate and request id. */
export function errorHeaders(e: AppError): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const k in e.headers) headers[k.toLowerCase()] = e.headers[k]!;
  return headers;
}

/** The log gets a 5xx's cause; the client only code and request id. */
export function logServerError(log: Logger, err: unknown, e: AppError, requestId: string | undefined): void {
  if (e.status < 500) return;
  log.error(e.kind === 'unexpected' ? 'unhandled error' : e.message, {
    requestId,
    code: e.code,
    error: e.kind === 'unexpected' ? err : (e.cause ?? err),
  });
}
