import { HTTPException } from 'hono/http-exception';
import type { ErrorCode } from '../../core/kernel/codes.ts';
import { AppError, isAppError } from '../../core/kernel/errors.ts';
import { StoreBusy } from '../../core/store/types.ts';
import { UpstreamError } from '../../core/providers/types.ts';

const HTTP_EXCEPTION_CODES: Record<number, ErrorCode> = {
  400: 'bad_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 405: 'method_not_allowed',
  408: 'request_timeout', 413: 'payload_too_large', 415: 'unsupported_media_type', 429: 'rate_limited',
};

/** Anything thrown → the AppError the client sees. Unknown errors become a generic 500. */
export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  if (err instanceof UpstreamError) {
    const e = err.body.error;
    return AppError.relay(err.status, e.code ?? 'upstream_error', e.message, {
      type: e.type,
      cause: err,
      kind: err.status >= 500 ? 'operational' : 'user',
      ...(e.param ? { field: e.param } : {}),
      ...(err.retryAfterMs !== undefined ? { headers: { 'retry-after': String(Math.max(1, Math.ceil(err.retryAfterMs / 1000))) } } : {}),
    });
  }
  if (err instanceof StoreBusy) {
    return new AppError('store_busy', 'The store is busy; retry shortly.', { cause: err, headers: { 'Retry-After': '1' } });
  }
  if (err instanceof HTTPException && err.status < 500) {
    return new AppError(HTTP_EXCEPTION_CODES[err.status] ?? 'bad_request', err.message || 'Bad request.', { cause: err, status: err.status });
  }
  return new AppError('internal_error', 'An internal error occurred.', { cause: err });
}
