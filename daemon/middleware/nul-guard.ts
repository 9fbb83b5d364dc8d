import type { MiddlewareHandler } from 'hono';
import { nulRefused } from '../../core/kernel/input-guard.ts';
import type { AppEnv } from '../types.ts';

/** PostgreSQL cannot store NUL; `%00` is decoded before use, so search the raw URL. */
export function refuseNul(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.url.includes('%00')) throw nulRefused('The URL (a path segment or query value)');
    if (c.req.header('x-workspace-id')?.includes('\0')) throw nulRefused('The x-workspace-id header');
    await next();
  };
}
