/**
 * The one error type of the service. Every failure that reaches a client is an AppError with a
 * stable `code`; the daemon maps it to the body shape of the surface (/api or /api/v1).
 * `kind` separates the caller's mistake (user) from the environment failing (operational) and
 * from bugs (unexpected), so logs and metrics can tell them apart.
 */
export type ErrorKind = 'user' | 'operational' | 'unexpected';

export interface AppErrorOptions {
  field?: string;
  kind?: ErrorKind;
  cause?: unknown;
  /** Extra response headers, e.g. Retry-After on 429/503. */
  headers?: Record<string, string>;
  /** OpenAI error `type` for /api/v1 (defaults from status). */
  type?: string;
  /** Leave the request id out of the body, so every occurrence of this error is byte-identical
   * (the invitation 403 must not let a caller tell its five causes apart). The header keeps it. */
  uniformBody?: boolean;
}

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  readonly kind: ErrorKind;
  readonly headers: Record<string, string> | undefined;
  readonly type: string | undefined;
  readonly uniformBody: boolean;

  constructor(status: number, code: string, message: string, opts: AppErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.field = opts.field;
    this.kind = opts.kind ?? (status >= 500 ? 'operational' : 'user');
    this.headers = opts.headers;
    this.type = opts.type;
    this.uniformBody = opts.uniformBody ?? false;
  }
}

export const badRequest = (code: string, message: string, field?: string) =>
  new AppError(400, code, message, field === undefined ? {} : { field });
export const unauthorized = (message = 'Authentication required.') => new AppError(401, 'unauthorized', message);
export const forbidden = (message = 'You do not have access to this resource.', code = 'forbidden') =>
  new AppError(403, code, message);
export const notFound = (what = 'Resource') => new AppError(404, 'not_found', `${what} not found.`);
export const conflict = (code: string, message: string) => new AppError(409, code, message);

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
