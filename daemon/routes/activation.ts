import { Hono } from 'hono';
import { listActivation, workspaceActivation, type ActivationDeps } from '../../core/activation/service.ts';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import type { AppEnv } from '../types.ts';

/** Public, so milestones only (docs/public-endpoints.md). */
export function activationRoutes(core: Core, services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const deps = (): ActivationDeps => services.activation;
  app.get('/', async (c) => c.json(await listActivation(deps())));
  app.get('/:workspaceId', async (c) => c.json(await workspaceActivation(deps(), c.req.param('workspaceId'))));
  return app;
}
