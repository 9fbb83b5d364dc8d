import { Hono } from 'hono';
import * as z from 'zod';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { createShare, listShares, revokeShare } from '../../core/shares/service.ts';
import { readJson } from '../http/json-body.ts';
import type { AppEnv } from '../types.ts';

export const CreateBody = z.strictObject({ kind: z.enum(['run', 'conversation']), id: z.string().min(1).max(100) });

/** Anyone shares their own; someone else's is a 404. */
export function shareRoutes(core: Core, services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const deps = services.shares;
  app.post('/shares', async (c) => c.json(await createShare(deps, c.get('user').id, await readJson(c, CreateBody)), 201));
  app.get('/shares', async (c) => c.json({ data: await listShares(deps, c.get('user').id) }));
  app.delete('/shares/:id', async (c) => c.json(await revokeShare(deps, c.get('user').id, c.req.param('id'))));
  return app;
}
