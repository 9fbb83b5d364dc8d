import { randomFillSync } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../types.ts';

export const REQUEST_ID_HEADER = 'x-request-id';

// Conservative on purpose: the id lands in logs and response headers, so nothing that could split a
// log line, inject a header or smuggle markup is kept; a proxy's UUID or trace id passes.
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function isValidRequestId(value: string | undefined | null): value is string {
  return typeof value === 'string' && VALID_REQUEST_ID.test(value);
}

// 16 random bytes per id (as many as a UUID's), hex: `req_` + 32 characters. The bytes come from a
// buffer refilled 256 ids at a time; randomUUID() with its dashes stripped built four strings per
// request (~0.9 KB of garbage on every gateway call, `npm run bench -- alloc`). Not secrets: ids
// only need to be unique and unguessable enough not to collide.
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
