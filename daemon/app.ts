import { Hono } from 'hono';
import type { Core } from '../core/index.ts';
import { bodyLimit } from './middleware/body-limit.ts';
import { envelope } from './middleware/envelope.ts';
import { errorHandler, notFoundHandler, wrapNonErrors } from './middleware/errors.ts';
import { hostGuard } from './middleware/host-guard.ts';
import { refuseNul } from './middleware/nul-guard.ts';
import { healthRoutes } from './routes/health.ts';
import { createReadiness, type ReadinessOptions } from './readiness.ts';
import { activationRoutes } from './routes/activation.ts';
import { adminRoutes } from './routes/admin.ts';
import { appSurface } from './routes/app-surface.ts';
import { authRoutes } from './routes/auth.ts';
import { openApiRoutes } from './openapi/routes.ts';
import { publicShareRoutes } from './routes/public-share.ts';
import { publicWebhookRoutes } from './routes/public-webhooks.ts';
import { gatewayRoutes } from './routes/v1/index.ts';
import { runRoutes } from './routes/runs.ts';
import { workbenchRoutes } from './web/index.ts';
import type { Services } from '../core/services.ts';
import { chatLane } from './routes/v1/fast-chat.ts';
import { firstOf, healthLane, readinessLane, type FastLane } from './http/fast-lane.ts';
import type { AppEnv } from './types.ts';

/** Hono, plus the node:http fast lane for the hottest routes. */
export type App = Hono<AppEnv> & { readonly fastLane?: FastLane };

export interface AppOptions {
  readiness?: ReadinessOptions;
  /** Extra routes behind the same middleware (tests). */
  routes?: (app: App, core: Core, services: Services) => void;
}

/** Envelope first: everything after carries its request id; it sees the final status. */
export function createApp(core: Core, services: Services, opts: AppOptions = {}): App {
  const app = new Hono<AppEnv>();
  const readiness = createReadiness(core, opts.readiness);
  app.use('*', envelope(core));
  app.use('*', wrapNonErrors());
  // Before any body is read: unserved host names go no further.
  app.use('*', hostGuard(core));
  app.use('*', bodyLimit(core.config));
  app.use('*', refuseNul());

  app.route('/api/health', healthRoutes(readiness));
  app.route('/api/auth', authRoutes(core, services));
  app.route('/api/app', appSurface(core, services));
  app.route('/api/admin', adminRoutes(core, services));
  app.route('/api/public/webhooks', publicWebhookRoutes(core, services));
  app.route('/api/public/share', publicShareRoutes(core, services));
  app.route('/api/activation', activationRoutes(core, services));
  app.route('/api/v1', gatewayRoutes(core, services));
  app.route('/api/agents', runRoutes(core, services));
  app.route('/api', openApiRoutes());
  app.route('/', workbenchRoutes(core, services));
  opts.routes?.(app, core, services);

  app.onError(errorHandler(core.log));
  app.notFound(notFoundHandler);
  const fastLane = firstOf(healthLane(core), readinessLane(core, readiness), chatLane(core, services.gateway, services.credentials));
  return Object.assign(app, { fastLane });
}
