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

/**
 * `/api/v1`: the OpenAI-compatible gateway, Bearer member keys only. Every answer carries
 * x-request-id and the x-ratelimit-* headers (set by the route at admission, and copied onto error
 * responses here; read without counting when the route refused the request before admission).
 */
export function gatewayRoutes(core: Core, services: Services): Hono<AppEnv> {
  const rt = services.gateway;
  const app = new Hono<AppEnv>();
  app.use('*', requireBearer(core, services, 'member'), async (c, next) => {
    await next();
    // A request refused before admission (invalid body, Responses refusal) still answers with the
    // key's current standing, so clients see the rate-limit headers on every response.
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
