import { Hono } from 'hono';
import * as z from 'zod';
import { changeRole, listMembers, removeMember } from '../../core/accounts/members.ts';
import { ROLES } from '../../core/accounts/roles.ts';
import { workspacesOf } from '../../core/accounts/workspaces.ts';
import { notFound } from '../../core/kernel/errors.ts';
import type { Core } from '../../core/index.ts';
import { readJson } from '../http/json-body.ts';
import { requireRole } from '../middleware/session.ts';
import type { AppEnv } from '../types.ts';

export const RoleBody = z.strictObject({ role: z.enum(ROLES) });

/** The role rules live in core/accounts/members.ts. */
export function memberRoutes(core: Core): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/workspaces', async (c) => {
    const all = await workspacesOf(core.db, c.get('user').id);
    return c.json({ data: all.map((w) => ({ id: w.id, name: w.name, role: w.role, own: w.own, operator: w.operator })) });
  });

  app.get('/members', async (c) => c.json({ data: await listMembers(core.db, c.get('workspace').id) }));

  app.patch('/members/:userId', requireRole('admin'), async (c) => {
    const { role } = await readJson(c, RoleBody);
    const ws = c.get('workspace');
    const userId = c.req.param('userId');
    await changeRole(core.db, ws.id, ws.role, userId, role, new Date(core.clock.now()).toISOString());
    core.auth.credentialCache.dropUser(userId);
    const member = (await listMembers(core.db, ws.id)).find((m) => m.userId === userId);
    if (!member) throw notFound('Member'); // removed concurrently
    return c.json(member);
  });

  // Leaving needs no rank; removeMember checks removing others.
  app.delete('/members/:userId', async (c) => {
    const ws = c.get('workspace');
    await removeMember(core.db, ws.id, { userId: c.get('user').id, role: ws.role }, c.req.param('userId'), new Date(core.clock.now()).toISOString());
    core.auth.credentialCache.dropUser(c.req.param('userId'));
    return c.body(null, 204);
  });

  return app;
}
