import { Hono, type Context } from 'hono';
import * as z from 'zod';
import type { Caller } from '../../core/agents/access.ts';
import {
  checkVersionTarget,
  createAgent,
  deleteAgent,
  getAgent,
  getVersion,
  listAgents,
  listVersions,
  publishAgent,
  shareAgent,
  sharesOf,
  unshareAgent,
  updateAgent,
  type AgentDeps,
} from '../../core/agents/service.ts';
import { SettingsSchema } from '../../core/agents/validate.ts';
import { notFound } from '../../core/kernel/errors.ts';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { readJson } from '../http/json-body.ts';
import { requireRole } from '../middleware/session.ts';
import type { AppEnv } from '../types.ts';

const Tool = z.strictObject({
  type: z.string().min(1).max(64),
  name: z.string().min(1).max(64).optional(),
  approval: z.enum(['always', 'never']).optional(),
  config: z.record(z.string(), z.unknown()).optional(),
});
const fields = {
  name: z.string().trim().min(1).max(200),
  instructions: z.string().max(100_000),
  providerAccountId: z.string().min(1).max(100).nullable().optional(),
  model: z.string().min(1).max(300).nullable().optional(),
  tools: z.array(Tool).max(100).optional(),
  settings: SettingsSchema.optional(),
};
export const CreateBody = z.strictObject(fields);
export const PatchBody = z.strictObject({ ...fields, name: fields.name.optional(), instructions: fields.instructions.optional() });
export const ShareBody = z.union([z.strictObject({ userId: z.string().min(1).max(100) }), z.strictObject({ workspace: z.literal(true) })]);

const caller = (c: Context<AppEnv>): Caller => ({ userId: c.get('user').id, workspaceId: c.get('workspace').id, role: c.get('workspace').role });

/** Members create; the owner or an admin+ changes it; unseen agents are a 404. */
export function agentRoutes(core: Core, services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const deps = (): AgentDeps => services.agents;

  app.post('/agents', requireRole('member'), async (c) => {
    const body = await readJson(c, CreateBody);
    return c.json(await createAgent(deps(), caller(c), body), 201);
  });

  app.get('/agents', async (c) => c.json({ data: await listAgents(deps(), caller(c), { all: c.req.query('all') === '1' }) }));

  app.get('/agents/:id', async (c) => c.json(await getAgent(deps(), caller(c), c.req.param('id'))));

  app.patch('/agents/:id', async (c) => {
    const body = await readJson(c, PatchBody);
    return c.json(await updateAgent(deps(), caller(c), c.req.param('id'), body));
  });

  app.delete('/agents/:id', async (c) => {
    await deleteAgent(deps(), caller(c), c.req.param('id'));
    return c.body(null, 204);
  });

  // Checked as a run would, so a version that publishes also starts.
  app.post('/agents/:id/publish', async (c) => {
    const v = await publishAgent(deps(), caller(c), c.req.param('id'), async (draft) => {
      await checkVersionTarget(services.gateway, draft);
    });
    return c.json(v, 201);
  });

  app.get('/agents/:id/versions', async (c) => c.json({ data: await listVersions(deps(), caller(c), c.req.param('id')) }));

  app.get('/agents/:id/versions/:version', async (c) => {
    const raw = c.req.param('version');
    if (!/^[1-9][0-9]{0,8}$/.test(raw)) throw notFound('Agent version');
    return c.json(await getVersion(deps(), caller(c), c.req.param('id'), Number(raw)));
  });

  app.get('/agents/:id/shares', async (c) => c.json(await sharesOf(deps(), caller(c), c.req.param('id'))));

  app.post('/agents/:id/shares', async (c) => {
    const body = await readJson(c, ShareBody);
    return c.json(await shareAgent(deps(), caller(c), c.req.param('id'), body));
  });

  app.delete('/agents/:id/shares', async (c) => {
    const body = await readJson(c, ShareBody);
    return c.json(await unshareAgent(deps(), caller(c), c.req.param('id'), body));
  });
  return app;
}
