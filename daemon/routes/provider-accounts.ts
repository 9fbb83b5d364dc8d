import { Hono } from 'hono';
import * as z from 'zod';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { notFound } from '../../core/kernel/errors.ts';
import { createAccount, deleteAccount, getAccount, listAccounts, updateAccount } from '../../core/provider-accounts/service.ts';
import { testConnection } from '../../core/provider-accounts/test-connection.ts';
import { readJson } from '../http/json-body.ts';
import { requireRole } from '../middleware/session.ts';
import type { AppEnv } from '../types.ts';

const models = z.array(z.string().min(1).max(200)).max(1000);
export const CreateBody = z.strictObject({
  provider: z.string().min(1).max(40),
  name: z.string().trim().min(1).max(200),
  slug: z.string().min(1).max(40).optional(),
  apiKey: z.string().min(1).max(4096).optional(),
  baseUrl: z.string().min(1).max(2048).optional(),
  models: models.optional(),
});
export const PatchBody = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  apiKey: z.string().min(1).max(4096).nullable().optional(),
  baseUrl: z.string().min(1).max(2048).nullable().optional(),
  models: models.nullable().optional(),
  enabled: z.boolean().optional(),
});

/** Members read (agents name accounts); admins write. Sealed keys never come back out. */
export function providerAccountRoutes(core: Core, services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const rt = () => services.gateway;

  app.get('/provider-accounts', async (c) => c.json({ data: await listAccounts(rt().accounts, c.get('workspace').id) }));

  app.get('/provider-accounts/:id', async (c) => {
    const a = await getAccount(rt().accounts, c.get('workspace').id, c.req.param('id'));
    if (!a) throw notFound('Provider account');
    return c.json(a);
  });

  app.post('/provider-accounts', requireRole('admin'), async (c) => {
    const body = await readJson(c, CreateBody);
    const a = await createAccount(rt().accounts, c.get('workspace').id, c.get('user').id, body);
    rt().catalogue.invalidate(c.get('workspace').id);
    return c.json(a, 201);
  });

  app.patch('/provider-accounts/:id', requireRole('admin'), async (c) => {
    const body = await readJson(c, PatchBody);
    const ws = c.get('workspace').id;
    const a = await updateAccount(rt().accounts, ws, c.req.param('id'), body);
    rt().catalogue.invalidate(ws, a.id);
    return c.json(a);
  });

  // A failure is still a 200, with ok: false and the reason.
  app.post('/provider-accounts/:id/test', requireRole('admin'), async (c) => {
    const r = await testConnection(services.providerTests, c.get('workspace').id, c.req.param('id'));
    if (r.ok) rt().catalogue.invalidate(c.get('workspace').id, r.accountId);
    return c.json(r);
  });

  app.delete('/provider-accounts/:id', requireRole('admin'), async (c) => {
    const ws = c.get('workspace').id;
    await deleteAccount(rt().accounts, ws, c.req.param('id'));
    rt().catalogue.invalidate(ws, c.req.param('id'));
    return c.body(null, 204);
  });
  return app;
}
