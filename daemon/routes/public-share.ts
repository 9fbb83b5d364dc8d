import { Hono } from 'hono';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { openShare } from '../../core/shares/public-view.ts';
import type { AppEnv } from '../types.ts';

/** The path token is the only credential: no shared caching, no Referer leak. */
export function publicShareRoutes(core: Core, services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const deps = services.publicShares;
  app.use('*', async (c, next) => {
    await next();
    c.res.headers.set('cache-control', 'no-store');
    c.res.headers.set('referrer-policy', 'no-referrer');
    c.res.headers.set('x-robots-tag', 'noindex');
  });
  app.get('/:token', async (c) => c.json(await openShare(deps, c.req.param('token'))));
  return app;
}
