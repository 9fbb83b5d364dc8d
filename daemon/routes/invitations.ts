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

// Shape only: the service checks values, so `svc invite` refuses the same.
export const createBody = z.strictObject({
  email: z.string().max(320),
  role: z.string().max(16),
});

/** Off the request path; the outcome shows later as `deliveryStatus`. */
export function startDelivery(deps: DeliveryDeps, inv: IssuedInvitation, workspaceName: string): IssuedInvitation {
  if (!deps.relayUrl) return inv;
  deliverInvitation(deps, inv, workspaceName).catch((err: unknown) => {
    deps.log.error('invitation delivery crashed', { invitationId: inv.id, error: err });
  });
  return { ...inv, deliveryStatus: 'queued', deliveryDetail: null };
}

/** Admins and owners; others get 403 before the body is read. */
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
