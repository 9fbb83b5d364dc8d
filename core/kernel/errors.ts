import { ERROR_CODES, type CodeSpec, type CodeWithStatus, type ErrorCode, type ErrorKind } from './codes.ts';

/**
 * The one error type of the service. Every failure that reaches a client is an AppError with a
 * stable `code`; the daemon maps it to the body shape of the surface (/api or /api/v1).
 * `kind` separates the caller's mistake (user) from the environment failing (operational) and
 * from bugs (unexpected), so logs and metrics can tell them apart.
 */
export interface AppErrorOptions {
  field?: string;
  kind?: ErrorKind;
  cause?: unknown;
  /** Extra response headers, e.g. Retry-After on 429/503. */
  headers?: Record<string, string>;
  /** OpenAI error `type` for /api/v1 (defaults from the catalogue, then from status). */
  type?: string;
  /** Leave the request id out of the body, so every occurrence of this error is byte-identical
   * (the invitation 403 must not let a caller tell its five causes apart). The header keeps it. */
  uniformBody?: boolean;
  /** Only for a code the catalogue also answers with another status (its `also`). */
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

  /** An upstream provider's error, its status and code passed on unchanged (not in the catalogue). */
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
