import { Hono } from 'hono';
import { listActivation, workspaceActivation, type ActivationDeps } from '../../core/activation/service.ts';
import type { Core } from '../../core/index.ts';
import type { AppEnv } from '../types.ts';

/**
 * `GET /api/activation`, `GET /api/activation/:workspaceId`: public (no credential), milestones
 * only — see core/activation/service.ts and docs/public-endpoints.md.
 */
export function activationRoutes(core: Core): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const deps = (): ActivationDeps => ({ db: core.db, localTargetConfigured: !!core.config.localLlmBaseUrl });
  app.get('/', async (c) => c.json(await listActivation(deps())));
  app.get('/:workspaceId', async (c) => c.json(await workspaceActivation(deps(), c.req.param('workspaceId'))));
  return app;
}
