import { Hono } from 'hono';
import * as z from 'zod';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { assertMayActOn } from '../../core/accounts/members.ts';
import { membership } from '../../core/accounts/workspaces.ts';
import { notFound } from '../../core/kernel/errors.ts';
import { readJson, readJsonValue } from '../http/json-body.ts';
import { requireRole } from '../middleware/session.ts';
import type { AppEnv } from '../types.ts';

const limit = (max: number) => z.number().int().min(1).max(max).nullable();
export const LimitsBody = z.strictObject({
  requestsPerMinute: limit(10_000_000),
  tokensPerMinute: limit(1_000_000_000),
  tokensPerMonth: limit(Number.MAX_SAFE_INTEGER),
});

/** Everyone reads; admins and owners write. `null` = no limit at that level. */
export function gatewaySettingsRoutes(core: Core, services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const rt = () => services.gateway;

  app.get('/limits', async (c) => c.json({ workspace: await rt().limits.workspace(c.get('workspace').id) }));
  app.put('/limits', requireRole('admin'), async (c) => {
    const body = await readJson(c, LimitsBody);
    await rt().limits.set(c.get('workspace').id, '', body);
    return c.json({ workspace: body });
  });

  app.get('/limits/members/:userId', async (c) => {
    const ws = c.get('workspace').id;
    if (!(await membership(core.db, ws, c.req.param('userId')))) throw notFound('Member');
    return c.json({ member: await rt().limits.member(ws, c.req.param('userId')) });
  });
  app.put('/limits/members/:userId', requireRole('admin'), async (c) => {
    const ws = c.get('workspace');
    const body = await readJson(c, LimitsBody);
    // Nobody acts on a higher role.
    if (!(await assertMayActOn(core.db, ws.id, { userId: c.get('user').id, role: ws.role }, c.req.param('userId')))) throw notFound('Member');
    await rt().limits.set(ws.id, c.req.param('userId'), body);
    return c.json({ member: body });
  });

  app.get('/conduit', async (c) => c.json(await rt().conduit.get(c.get('workspace').id)));
  app.put('/conduit', requireRole('admin'), async (c) => c.json(await rt().conduit.set(c.get('workspace').id, await readJsonValue(c))));
  return app;
}
