import { StoreBusy, UniqueViolation } from '../types.ts';

/** Busy or unreachable, so 503 + Retry-After rather than a bug: PostgreSQL's SQLITE_BUSY. */
const BUSY_SQLSTATES = new Set([
  '08000', '08001', '08003', '08004', '08006', // connection exceptions
  '53300', // too_many_connections
  '57P01', '57P02', '57P03', // admin/crash shutdown, cannot connect now
  '40001', '40P01', '55P03', // serialization failure, deadlock, lock not available
]);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const DROPPED = /connection terminated|timeout exceeded when trying to connect|not queryable|connection .*closed/i;

export function mapPgError(err: unknown): unknown {
  if (err instanceof UniqueViolation || err instanceof StoreBusy) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === '23505') return new UniqueViolation(err);
  if (isBusy(err)) return new StoreBusy(err);
  return err;
}

/** The connection failed; the client must not return to the pool. */
export function isConnectionError(err: unknown): boolean {
  const e = err instanceof StoreBusy ? err.cause : err;
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || code.startsWith('08') || code.startsWith('57P'))) return true;
  return e instanceof Error && DROPPED.test(e.message);
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (BUSY_SQLSTATES.has(code) || NETWORK_CODES.has(code))) return true;
  // A refused dual-stack connect is an AggregateError.
  if (err instanceof AggregateError) return err.errors.some(isBusy);
  return err instanceof Error && DROPPED.test(err.message);
}
