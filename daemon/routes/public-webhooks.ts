import { Hono, type Context } from 'hono';
import * as z from 'zod';
import { safeEqual } from '../../core/auth/tokens.ts';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { unauthorized } from '../../core/kernel/errors.ts';
import { recordDeliveryResult } from '../../core/invitations/delivery.ts';
import { triggerAgent, triggerWorker, WEBHOOK_BODY_LIMIT, type TriggerDeps, type Triggered } from '../../core/workers/trigger.ts';
import { tooLarge } from '../http/limits.ts';
import { readJson, unreadableBody } from '../http/json-body.ts';
import type { AppEnv } from '../types.ts';

/** Secret before body: unauthorised callers learn and change nothing. */
export function publicWebhookRoutes(core: Core, services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/invitation-email', invitationEmail(core, services));
  app.post('/workers/:webhookRef', trigger(services, triggerWorker, 'webhookRef'));
  app.post('/agents/:token', trigger(services, triggerAgent, 'token'));
  return app;
}

/** One identical 404 for every miss (core/workers/trigger.ts); runs queue as the owner. */
function trigger(services: Services, fn: (d: TriggerDeps, cred: string, readBody: () => Promise<string>) => Promise<Triggered>, param: string) {
  return async (c: Context<AppEnv>) => {
    c.header('cache-control', 'no-store');
    c.header('referrer-policy', 'no-referrer');
    const d = services.triggers;
    const readBody = async () => {
      const declared = c.req.header('content-length');
      if (declared !== undefined && Number(declared) > WEBHOOK_BODY_LIMIT) throw tooLarge(WEBHOOK_BODY_LIMIT);
      let text: string;
      try {
        text = await c.req.text();
      } catch (err) {
        throw unreadableBody(err);
      }
      if (Buffer.byteLength(text, 'utf8') > WEBHOOK_BODY_LIMIT) throw tooLarge(WEBHOOK_BODY_LIMIT);
      return text;
    };
    const { run, headers } = await fn(d, c.req.param(param) ?? '', readBody);
    for (const [k, v] of Object.entries(headers)) c.header(k, v);
    return c.json({ runId: run.id, conversationId: run.conversation_id, status: 'queued' }, 202);
  };
}

export const deliveryResult = z.strictObject({
  invitationId: z.string().min(1).max(64),
  status: z.enum(['sent', 'delivered', 'bounced', 'failed']),
  detail: z.string().max(1000).optional(),
});

/** The email relay's delivery report; header `x-svc-webhook-secret`. */
function invitationEmail(core: Core, services: Services) {
  const secret = core.secrets.SERVICE_INVITATION_EMAIL_SECRET;
  return async (c: Context<AppEnv>) => {
    const given = c.req.header('x-svc-webhook-secret');
    if (!given || !safeEqual(given, secret)) {
      core.metrics.authFailures.inc({ surface: 'webhook', reason: given ? 'invalid' : 'missing' });
      throw unauthorized('A valid x-svc-webhook-secret header is required.');
    }
    const body = await readJson(c, deliveryResult);
    await recordDeliveryResult(services.invitationDelivery, given, body);
    return c.body(null, 204);
  };
}
