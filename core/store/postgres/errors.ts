import { StoreBusy, UniqueViolation } from '../types.ts';

/**
 * Which PostgreSQL failures mean "the store is busy or unreachable, try again shortly" (503 +
 * Retry-After) rather than a bug: the server refusing or dropping connections, the pool's wait
 * running out, and lock contention (deadlock, serialization failure, NOWAIT) — the counterparts of
 * SQLITE_BUSY/LOCKED.
 */
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

/** True when the connection itself failed (the client must not go back to the pool). */
export function isConnectionError(err: unknown): boolean {
  const e = err instanceof StoreBusy ? err.cause : err;
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || code.startsWith('08') || code.startsWith('57P'))) return true;
  return e instanceof Error && DROPPED.test(e.message);
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (BUSY_SQLSTATES.has(code) || NETWORK_CODES.has(code))) return true;
  // Node reports a refused dual-stack connect as an AggregateError whose parts carry the code.
  if (err instanceof AggregateError) return err.errors.some(isBusy);
  return err instanceof Error && DROPPED.test(err.message);
}
