import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../types.ts';

export const REQUEST_ID_HEADER = 'x-request-id';

// Conservative on purpose: the id lands in logs and response headers, so nothing that could split a
// log line, inject a header or smuggle markup is kept; a proxy's UUID or trace id passes.
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function isValidRequestId(value: string | undefined | null): value is string {
  return typeof value === 'string' && VALID_REQUEST_ID.test(value);
}

export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}

/**
 * Keeps a valid incoming `x-request-id` (so a reverse proxy's id ties its logs to ours), otherwise
 * generates one, and sets it on every response — errors and 404s included, because the error
 * handler runs inside `next()`.
 */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header(REQUEST_ID_HEADER);
    const id = isValidRequestId(incoming) ? incoming : newRequestId();
    c.set('requestId', id);
    await next();
    try {
      c.res.headers.set(REQUEST_ID_HEADER, id);
    } catch {
      // A Response with immutable headers (e.g. one passed through from fetch): copy it.
      const res = new Response(c.res.body, c.res);
      res.headers.set(REQUEST_ID_HEADER, id);
      c.res = res;
    }
  };
}
