import { ERROR_CODES, type CodeSpec, type ErrorCode } from '../kernel/codes.ts';
import type { OpenAiErrorBody } from '../wire/openai.ts';
import { ADDRESS_REFUSED, AddressRefused } from '../net/address-guard.ts';
import { sanitizeUpstreamText } from './redact.ts';
import { UpstreamError, type ProviderId } from './types.ts';

/** Upstream failures in OpenAI's shape; the status table is in docs/providers.md. 401/403
 * become 502: the account's key is bad, not the member's. Bodies are never passed on. */

const NO_WORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

export function errorBody(message: string, type: string, code: string | null, param: string | null = null): OpenAiErrorBody {
  return { error: { message, type, param, code } };
}

/** Our own code, status and type from the catalogue. */
export function upstreamFailure(code: ErrorCode, message: string, opts: { noWork: boolean; retryAfterMs?: number; cause?: unknown }, param: string | null = null): UpstreamError {
  const spec: CodeSpec = ERROR_CODES[code];
  return new UpstreamError(spec.status, errorBody(message, spec.type ?? 'server_error', code, param), opts);
}

/** Anthropic error types → OpenAI error types. */
const ANTHROPIC_TYPES: Record<string, string> = {
  invalid_request_error: 'invalid_request_error',
  authentication_error: 'authentication_error',
  permission_error: 'permission_error',
  not_found_error: 'not_found_error',
  request_too_large: 'invalid_request_error',
  rate_limit_error: 'rate_limit_error',
  api_error: 'server_error',
  overloaded_error: 'server_error',
};

/** OpenAI's or Anthropic's shape; anything else keeps nothing. */
export function parseErrorBody(text: string): { message?: string; type?: string; code?: string | null; param?: string | null } {
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch {
    // An HTML page or whatever a wrong base URL answered.
    return {};
  }
  // Some OpenAI-compatible servers wrap the error in an array.
  if (Array.isArray(j)) j = j[0];
  if (!j || typeof j !== 'object') return {};
  const o = j as Record<string, unknown>;
  const e = o.error;
  if (e && typeof e === 'object') {
    const err = e as Record<string, unknown>;
    const type = ident(err.type);
    if (o.type === 'error' && type) {
      return { message: str(err.message), type: ANTHROPIC_TYPES[type] ?? 'server_error', code: type, param: null };
    }
    const code = ident(typeof err.code === 'number' ? String(err.code) : err.code) ?? null;
    return { message: str(err.message), type, code, param: ident(err.param) ?? null };
  }
  if (typeof e === 'string') return { message: e };
  if (typeof o.message === 'string') return { message: o.message };
  if (typeof o.detail === 'string') return { message: o.detail };
  return {};
}

/** Passed on only when identifier-shaped. */
const ident = (v: unknown) => (typeof v === 'string' && /^[A-Za-z0-9_.:[\]-]{1,100}$/.test(v) ? v : undefined);

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** `retry-after-ms`, or `retry-after` in seconds or as a date. */
export function parseRetryAfter(headers: Record<string, string | string[] | undefined>, now = Date.now()): number | undefined {
  const ms = first(headers['retry-after-ms']);
  if (ms !== undefined && ms !== '' && Number.isFinite(Number(ms))) return Math.max(0, Math.round(Number(ms)));
  const ra = first(headers['retry-after']);
  if (ra === undefined || ra === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(ra.trim())) return Math.round(Number(ra) * 1000);
  const at = Date.parse(ra);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** A non-2xx answer; `secrets` are cut from whatever the upstream says. */
export function httpError(
  provider: ProviderId,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  secrets: readonly (string | undefined)[] = [],
): UpstreamError {
  const p = parseErrorBody(text);
  const said = p.message === undefined ? '' : sanitizeUpstreamText(p.message, secrets);
  const upstreamMsg = said === '' ? `HTTP ${status}` : said;
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(headers);
    const body = errorBody(upstreamMsg, 'rate_limit_error', p.code ?? 'rate_limit_exceeded', p.param ?? null);
    return new UpstreamError(429, body, retryAfterMs === undefined ? { noWork: true } : { noWork: true, retryAfterMs });
  }
  if (status === 401 || status === 403) {
    return upstreamFailure('upstream_auth_failed', `The ${provider} provider account was refused (${status}): ${upstreamMsg}`, { noWork: false });
  }
  if (status >= 500 || status < 400) {
    const message = `The ${provider} upstream failed (${status}): ${upstreamMsg}`;
    // "Not now" before taking the work: retryable.
    const retryAfterMs = status === 503 ? parseRetryAfter(headers) : undefined;
    if (retryAfterMs !== undefined) return upstreamFailure('upstream_error', message, { noWork: true, retryAfterMs });
    return upstreamFailure('upstream_error', message, { noWork: false });
  }
  const body = errorBody(upstreamMsg, p.type ?? 'invalid_request_error', p.code ?? null, p.param ?? null);
  return new UpstreamError(status, body, { noWork: false });
}

function codeOf(e: unknown): string | undefined {
  if (!e || typeof e !== 'object') return undefined;
  const o = e as { code?: unknown; errors?: unknown[]; cause?: unknown };
  if (typeof o.code === 'string') return o.code;
  // Happy-eyeballs failures are AggregateErrors.
  if (Array.isArray(o.errors)) for (const x of o.errors) { const c = codeOf(x); if (c) return c; }
  return o.cause ? codeOf(o.cause) : undefined;
}

function refusedOf(e: unknown, depth = 0): AddressRefused | undefined {
  if (e instanceof AddressRefused) return e;
  if (!e || typeof e !== 'object' || depth > 4) return undefined;
  const o = e as { errors?: unknown[]; cause?: unknown };
  for (const x of Array.isArray(o.errors) ? o.errors : []) {
    const r = refusedOf(x, depth + 1);
    if (r) return r;
  }
  return refusedOf(o.cause, depth + 1);
}

/** A transport failure (no HTTP status): connect, timeout, reset or abort. */
export function transportError(provider: ProviderId, e: unknown, signal?: AbortSignal): UpstreamError {
  if (e instanceof UpstreamError) return e;
  if (signal?.aborted || (e as { name?: string })?.name === 'AbortError' || codeOf(e) === 'UND_ERR_ABORTED') {
    return upstreamFailure('client_closed_request', 'The client closed the request.', { noWork: false, cause: e });
  }
  const code = codeOf(e) ?? 'unknown';
  if (code === ADDRESS_REFUSED) {
    const cls = refusedOf(e)?.addressClass ?? 'not public';
    const msg = `The ${provider} upstream's address is not public (${cls}): provider accounts may only reach public addresses unless the operator lists the host in SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS.`;
    return upstreamFailure('upstream_address_refused', msg, { noWork: true, cause: e });
  }
  if (NO_WORK_CODES.has(code)) {
    return upstreamFailure('upstream_unavailable', `The ${provider} upstream is unreachable (${code}).`, { noWork: true, cause: e });
  }
  if (TIMEOUT_CODES.has(code)) {
    return upstreamFailure('upstream_timeout', `The ${provider} upstream timed out (${code}).`, { noWork: false, cause: e });
  }
  return upstreamFailure('upstream_connection_reset', `The ${provider} upstream connection failed (${code}).`, { noWork: false, cause: e });
}

/** A 200 whose body is not what the protocol promises. */
export function badResponse(provider: ProviderId, what: string): UpstreamError {
  return upstreamFailure('upstream_bad_response', `The ${provider} upstream sent ${what}.`, { noWork: false });
}

/** An error event inside a stream that already began. */
export function streamError(provider: ProviderId, payload: unknown, secrets: readonly (string | undefined)[] = []): UpstreamError {
  const p = parseErrorBody(JSON.stringify(payload));
  const said = p.message === undefined ? '' : sanitizeUpstreamText(p.message, secrets);
  const body = errorBody(`The ${provider} upstream failed mid-stream: ${said || 'unknown error'}`, 'server_error', p.code ?? 'upstream_error');
  return new UpstreamError(502, body, { noWork: false });
}
