import { Hono } from 'hono';
import type { Core } from '../../../core/index.ts';
import type { Services } from '../../../core/services.ts';
import { requireBearer } from '../../middleware/bearer.ts';
import type { AppEnv } from '../../types.ts';
import { chatRoutes } from './chat.ts';
import { embeddingsRoutes } from './embeddings.ts';
import { modelRoutes } from './models.ts';
import { quotaRoutes } from './quota.ts';
import { responsesRoutes } from './responses.ts';
import { routerRoutes } from './router.ts';

/** Member keys only; every answer, errors too, carries the x-ratelimit-* headers. */
export function gatewayRoutes(core: Core, services: Services): Hono<AppEnv> {
  const rt = services.gateway;
  const app = new Hono<AppEnv>();
  app.use('*', requireBearer(core, services, 'member'), async (c, next) => {
    await next();
    // Refused before admission: the key's standing, read without counting.
    const h = c.get('rateHeaders') ?? (await rt.quota.headersFor(c.get('principal')));
    for (const k in h) c.res.headers.set(k, h[k]!);
  });
  app.route('/', modelRoutes(rt));
  app.route('/', chatRoutes(rt));
  app.route('/', responsesRoutes(rt));
  app.route('/', embeddingsRoutes(rt));
  app.route('/', quotaRoutes(rt, core));
  app.route('/', routerRoutes(rt));
  return app;
}
