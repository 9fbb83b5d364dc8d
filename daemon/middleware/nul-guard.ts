import type { MiddlewareHandler } from 'hono';
import { nulRefused } from '../../core/kernel/input-guard.ts';
import type { AppEnv } from '../types.ts';

/**
 * 400 nul_not_allowed for a NUL in the URL (`%00` in a path parameter or a query value: both are
 * decoded before anything reads them) or in the x-workspace-id header. Ids and queries reach the
 * store, where PostgreSQL cannot take a NUL (core/kernel/input-guard.ts). One search of the raw URL.
 */
export function refuseNul(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.url.includes('%00')) throw nulRefused('The URL (a path segment or query value)');
    if (c.req.header('x-workspace-id')?.includes('\0')) throw nulRefused('The x-workspace-id header');
    await next();
  };
}
