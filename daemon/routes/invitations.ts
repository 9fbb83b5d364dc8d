import { Hono, type Context } from 'hono';
import * as z from 'zod';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { deliverInvitation, type DeliveryDeps } from '../../core/invitations/delivery.ts';
import {
  createInvitation,
  listInvitations,
  resendInvitation,
  revokeInvitation,
  type Actor,
} from '../../core/invitations/service.ts';
import type { IssuedInvitation } from '../../core/invitations/types.ts';
import { readJson } from '../http/json-body.ts';
import { requireRole } from '../middleware/session.ts';
import type { AppEnv } from '../types.ts';

// Shape only; the service checks the role name and the address, so the API and `svc invite`
// refuse the same inputs with the same messages.
export const createBody = z.strictObject({
  email: z.string().max(320),
  role: z.string().max(16),
});

/**
 * Hands a fresh token to the email relay off the request path: the client gets its answer at once,
 * the outcome shows later as `deliveryStatus`. A relay failure is logged, never thrown at the client.
 */
export function startDelivery(deps: DeliveryDeps, inv: IssuedInvitation, workspaceName: string): IssuedInvitation {
  if (!deps.relayUrl) return inv;
  deliverInvitation(deps, inv, workspaceName).catch((err: unknown) => {
    deps.log.error('invitation delivery crashed', { invitationId: inv.id, error: err });
  });
  return { ...inv, deliveryStatus: 'queued', deliveryDetail: null };
}

/**
 * `/api/app/invitations`: admins and owners of the active workspace (viewers and members get 403
 * before their body is read). Tokens appear only in create and resend answers.
 */
export function invitationRoutes(core: Core, services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const deps = services.invitations;
  const actor = (c: Context<AppEnv>): Actor => ({ userId: c.get('user').id, role: c.get('workspace').role });

  app.use('/invitations', requireRole('admin'));
  app.use('/invitations/*', requireRole('admin'));

  app.post('/invitations', async (c) => {
    const body = await readJson(c, createBody);
    const ws = c.get('workspace');
    const inv = await createInvitation(deps, ws.id, actor(c), body);
    return c.json(startDelivery(services.invitationDelivery, inv, ws.name), 201);
  });

  app.get('/invitations', async (c) => {
    return c.json({ data: await listInvitations(deps, c.get('workspace').id) });
  });

  app.post('/invitations/:id/resend', async (c) => {
    const ws = c.get('workspace');
    const inv = await resendInvitation(deps, ws.id, actor(c), c.req.param('id'));
    return c.json(startDelivery(services.invitationDelivery, inv, ws.name));
  });

  app.delete('/invitations/:id', async (c) => {
    return c.json(await revokeInvitation(deps, c.get('workspace').id, actor(c), c.req.param('id')));
  });

  return app;
}
