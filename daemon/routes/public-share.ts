import { Hono } from 'hono';
import type { Core } from '../../core/index.ts';
import { previewLinkDeps } from '../../core/apps/service.ts';
import { openShare } from '../../core/shares/public-view.ts';
import type { AppEnv } from '../types.ts';

/**
 * `GET /api/public/share/:token` — no cookie; the path token is the only credential (SPEC
 * Authentication rule 1: the access log keeps only its first 4 characters, see redact-path.ts).
 * The answer must not be cached by shared caches nor leak the URL onward via Referer.
 */
export function publicShareRoutes(core: Core): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const deps = { db: core.db, clock: core.clock, tokenKey: core.auth.tokenKey, preview: previewLinkDeps(core.config, core.secrets, core.clock) };
  app.use('*', async (c, next) => {
    await next();
    c.res.headers.set('cache-control', 'no-store');
    c.res.headers.set('referrer-policy', 'no-referrer');
    c.res.headers.set('x-robots-tag', 'noindex');
  });
  app.get('/:token', async (c) => c.json(await openShare(deps, c.req.param('token'))));
  return app;
}
