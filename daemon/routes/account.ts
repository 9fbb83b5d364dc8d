import { Hono } from 'hono';
import * as z from 'zod';
import { changePassword } from '../../core/accounts/password-change.ts';
import { endUserSessions, setActiveWorkspace } from '../../core/accounts/sessions.ts';
import { membership, workspacesOf } from '../../core/accounts/workspaces.ts';
import { forbidden } from '../../core/kernel/errors.ts';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { readJson } from '../http/json-body.ts';
import { clearSessionCookies, requireSession } from '../middleware/session.ts';
import type { AppEnv } from '../types.ts';

export const SwitchBody = z.strictObject({ workspaceId: z.string().min(1).max(100) });
export const PasswordBody = z.strictObject({ currentPassword: z.string().max(1024), newPassword: z.string().max(1024) });

/** The first workspace that is not the user's own. */
export async function invitingWorkspace(core: Core, userId: string): Promise<string | undefined> {
  return (await workspacesOf(core.db, userId)).find((w) => !w.own)?.id;
}

/** The caller's own session and password; a password change ends the other sessions. */
export function accountRoutes(core: Core, services: Services): Hono<AppEnv> {
  const deps = services.accounts;
  const app = new Hono<AppEnv>();

  app.patch('/session', requireSession(core, services), async (c) => {
    const { workspaceId } = await readJson(c, SwitchBody);
    const ws = await membership(core.db, workspaceId, c.get('user').id);
    if (!ws) throw forbidden('You are not a member of that workspace.', 'not_a_member');
    await setActiveWorkspace(deps, c.get('sessionToken'), ws.id);
    return c.json({ activeWorkspace: { id: ws.id, name: ws.name, role: ws.role } });
  });

  app.post('/password', requireSession(core, services), async (c) => {
    const body = await readJson(c, PasswordBody);
    const r = await changePassword(deps, { userId: c.get('user').id, ...body, keepSession: c.get('sessionToken') });
    return c.json(r);
  });

  app.post('/logout-all', requireSession(core, services), async (c) => {
    const ended = await endUserSessions(deps, c.get('user').id);
    clearSessionCookies(c, core);
    return c.json({ sessionsEnded: ended });
  });

  return app;
}
