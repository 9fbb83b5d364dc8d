import { ERROR_CODES, type CodeSpec, type CodeWithStatus, type ErrorCode, type ErrorKind } from './codes.ts';

/** Every client-facing failure is an AppError with a stable `code`; `kind` tells
 * the caller's mistakes, the environment's failures and bugs apart in logs. */
export interface AppErrorOptions {
  field?: string;
  kind?: ErrorKind;
  cause?: unknown;
  /** Extra response headers, e.g. Retry-After on 429/503. */
  headers?: Record<string, string>;
  /** OpenAI error `type` for /api/v1 (defaults from the catalogue, then from status). */
  type?: string;
  /** No request id in the body, so the invitation 403's five causes look identical. */
  uniformBody?: boolean;
  /** One of the code's `also` statuses. */
  status?: number;
}

export class AppError extends Error {
  readonly status: number;
  /** An ErrorCode, or an upstream's own code passed on by relay(). */
  readonly code: string;
  readonly field: string | undefined;
  readonly kind: ErrorKind;
  readonly headers: Record<string, string> | undefined;
  readonly type: string | undefined;
  readonly uniformBody: boolean;

  constructor(code: ErrorCode, message: string, opts: AppErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    const spec: CodeSpec = ERROR_CODES[code];
    this.name = 'AppError';
    this.status = opts.status ?? spec.status;
    this.code = code;
    this.field = opts.field;
    this.kind = opts.kind ?? spec.kind ?? (this.status >= 500 ? 'operational' : 'user');
    this.headers = opts.headers;
    this.type = opts.type ?? spec.type;
    this.uniformBody = opts.uniformBody ?? false;
  }

  /** An upstream's error, status and code passed on unchanged. */
  static relay(status: number, code: string, message: string, opts: AppErrorOptions & { type: string; kind: ErrorKind }): AppError {
    const e = new AppError('upstream_error', message, { ...opts, status });
    (e as { code: string }).code = code;
    return e;
  }
}

export const badRequest = (code: CodeWithStatus<400>, message: string, field?: string) =>
  new AppError(code, message, field === undefined ? {} : { field });
export const unauthorized = (message = 'Authentication required.') => new AppError('unauthorized', message);
export const forbidden = (message = 'You do not have access to this resource.', code: CodeWithStatus<403> = 'forbidden') =>
  new AppError(code, message);
export const notFound = (what = 'Resource') => new AppError('not_found', `${what} not found.`);
export const conflict = (code: CodeWithStatus<409>, message: string) => new AppError(code, message);

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
