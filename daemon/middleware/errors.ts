import type { Context, ErrorHandler, MiddlewareHandler, NotFoundHandler } from 'hono';
import { AppError } from '../../core/kernel/errors.ts';
import type { Logger } from '../../core/kernel/log.ts';
import { errorBody, errorHeaders, logServerError } from '../http/envelope.ts';
import { toAppError } from '../http/errors.ts';
import { isGatewayPath } from '../http/limits.ts';
import type { AppEnv } from '../types.ts';

/** The app shape under /api, OpenAI's under /api/v1 (DESIGN.md). */
export function errorResponse(c: Context<AppEnv>, e: AppError): Response {
  return c.body(errorBody(isGatewayPath(c.req.path), e, c.get('requestId')), e.status as 500, errorHeaders(e));
}

export function errorHandler(log: Logger): ErrorHandler<AppEnv> {
  return (err, c) => {
    const e = toAppError(err);
    logServerError(log, err, e, c.get('requestId'));
    return errorResponse(c, e);
  };
}

export const notFoundHandler: NotFoundHandler<AppEnv> = (c) => {
  c.set('unmatched', true);
  return errorResponse(c, new AppError('not_found', `No route for ${c.req.method} ${c.req.path.length > 200 ? 'this path' : c.req.path}.`));
};

/** Hono rethrows non-Errors as a bare 500; wrapped, onError answers them. */
export function wrapNonErrors(): MiddlewareHandler<AppEnv> {
  return async (_c, next) => {
    try {
      await next();
    } catch (err) {
      if (err instanceof Error) throw err;
      throw new Error('non-Error value thrown', { cause: err });
    }
  };
}
