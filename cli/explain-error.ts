import { dirname } from 'node:path';
import { StoreBusy } from '../core/store/types.ts';

type SysError = Error & { code?: string; path?: string; syscall?: string; address?: string; port?: number; errors?: unknown[] };

/** One line to act on: what failed, the variable or file, the fix. */
export function explainError(err: unknown, env: NodeJS.ProcessEnv = process.env): string {
  if (!(err instanceof Error)) return String(err);
  // A wrapped file-system error is explained by its cause.
  const cause = err.cause as SysError | undefined;
  const e = (cause?.path && cause.code ? cause : err) as SysError;
  if (e.code === 'EADDRINUSE') {
    const port = e.port ?? env.PORT ?? 8484;
    return `port ${port} on ${e.address ?? env.SERVICE_HOST ?? '127.0.0.1'} is already in use (PORT=${port}): stop the other process (find it with: ss -ltnp 'sport = :${port}') or set PORT to a free port`;
  }
  if (e.code === 'EACCES' && e.syscall === 'listen') {
    return `this user may not listen on port ${e.port ?? env.PORT} (EACCES): ports below 1024 need privileges; set PORT=8484 and put a reverse proxy in front (docs/deploy.md)`;
  }
  if ((e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS' || e.code === 'ENOTDIR') && e.path) {
    const why = e.code === 'ENOTDIR' ? `a part of ${dirname(e.path)} is a file, not a directory` : `the directory ${dirname(e.path)} is not writable by this user (uid ${process.getuid?.() ?? '?'})`;
    return `cannot ${e.syscall ?? 'write'} ${e.path} (${e.code}): ${why}; fix it, or set SERVICE_DB_PATH to a file in a writable directory (SERVICE_SECRETS_FILE for the secrets file)`;
  }
  if (err instanceof StoreBusy && env.SERVICE_STORE === 'postgres') {
    return `cannot connect to PostgreSQL at ${pgHost(env.DATABASE_URL)} (DATABASE_URL): ${networkCode(err.cause) ?? 'connection failed'}; check that PostgreSQL is running and accepts TCP connections there, and that DATABASE_URL is right`;
  }
  const pgCode = typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? e.code : undefined;
  if (pgCode && env.SERVICE_STORE === 'postgres') {
    return `PostgreSQL at ${pgHost(env.DATABASE_URL)} (DATABASE_URL) refused: ${e.message}; check the user, password and database name in DATABASE_URL`;
  }
  return e.message;
}

/** host:port/database of a connection string, never its user or password. */
function pgHost(url: string | undefined): string {
  try {
    const u = new URL(url ?? '');
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return 'an unparsable URL';
  }
}

function networkCode(cause: unknown): string | undefined {
  const c = cause as SysError | undefined;
  if (!c) return undefined;
  if (c.code && /^E[A-Z]+$/.test(c.code)) return c.code;
  if (Array.isArray(c.errors)) return c.errors.map(networkCode).find(Boolean);
  return c.message || undefined;
}
