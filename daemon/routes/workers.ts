import { Hono, type Context } from 'hono';
import * as z from 'zod';
import type { Caller } from '../../core/agents/access.ts';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { issueAgentWebhookToken, removeAgentWebhookToken } from '../../core/workers/agent-token.ts';
import { createWorker, deleteWorker, getWorker, listWorkers, rotateWebhookRef, updateWorker, type WorkerDeps } from '../../core/workers/service.ts';
import { readJson } from '../http/json-body.ts';
import { requireRole } from '../middleware/session.ts';
import type { AppEnv } from '../types.ts';

const fields = {
  name: z.string().trim().min(1).max(200),
  agentId: z.string().min(1).max(64),
  // DESIGN.md's inputText is accepted as an alias.
  inputTemplate: z.string().min(1).max(100_000),
  schedule: z.string().min(1).max(200).nullable().optional(),
  notifyUrl: z.string().min(1).max(2048).nullable().optional(),
  enabled: z.boolean().optional(),
};
export const CreateBody = z.strictObject({ ...fields, inputTemplate: fields.inputTemplate.optional(), inputText: fields.inputTemplate.optional() }).refine(
  (b) => (b.inputTemplate ?? b.inputText) !== undefined,
  { message: 'inputTemplate is required', path: ['inputTemplate'] },
);
export const PatchBody = z.strictObject({
  ...fields,
  name: fields.name.optional(),
  agentId: fields.agentId.optional(),
  inputTemplate: fields.inputTemplate.optional(),
  inputText: fields.inputTemplate.optional(),
});
/** Folds in DESIGN.md's inputText; inputTemplate wins when both are given. */
const template = <T extends { inputTemplate?: string | undefined; inputText?: string | undefined }>({ inputText, ...rest }: T) => ({
  ...rest,
  inputTemplate: rest.inputTemplate ?? inputText,
});

const caller = (c: Context<AppEnv>): Caller => ({ userId: c.get('user').id, workspaceId: c.get('workspace').id, role: c.get('workspace').role });

/** Members create for agents they can run; owner or admin+ manage. */
export function workerRoutes(core: Core, services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const deps = (): WorkerDeps => services.workers;

  app.post('/workers', requireRole('member'), async (c) => {
    const body = template(await readJson(c, CreateBody));
    return c.json(await createWorker(deps(), caller(c), { ...body, inputTemplate: body.inputTemplate! }), 201);
  });
  app.get('/workers', async (c) => c.json({ data: await listWorkers(deps(), caller(c)) }));
  app.get('/workers/:id', async (c) => c.json(await getWorker(deps(), caller(c), c.req.param('id'))));
  app.patch('/workers/:id', async (c) => {
    const body = template(await readJson(c, PatchBody));
    return c.json(await updateWorker(deps(), caller(c), c.req.param('id'), body));
  });
  app.delete('/workers/:id', async (c) => {
    await deleteWorker(deps(), caller(c), c.req.param('id'));
    return c.body(null, 204);
  });
  app.post('/workers/:id/rotate-webhook', async (c) => c.json(await rotateWebhookRef(deps(), caller(c), c.req.param('id'))));

  // Legacy: one webhook token per agent, acting as the user who issued it.
  app.post('/agents/:id/webhook-token', async (c) => c.json(await issueAgentWebhookToken(services.workers.db, services.workers.tokenKey, caller(c), c.req.param('id')), 201));
  app.delete('/agents/:id/webhook-token', async (c) => {
    await removeAgentWebhookToken(core.db, caller(c), c.req.param('id'));
    return c.body(null, 204);
  });
  return app;
}
