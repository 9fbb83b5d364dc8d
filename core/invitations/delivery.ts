import { createHmac } from 'node:crypto';
import { safeEqual } from '../auth/tokens.ts';
import type { Clock } from '../kernel/clock.ts';
import { badRequest, notFound, unauthorized } from '../kernel/errors.ts';
import type { Logger } from '../kernel/log.ts';
import type { Db } from '../store/types.ts';
import { setDeliveryStatus as setStatus } from './repo.ts';
import type { DeliveryStatus, IssuedInvitation } from './types.ts';

export interface DeliveryDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  relayUrl: string | undefined;
  /** SERVICE_INVITATION_EMAIL_SECRET: signs our POST and authorises the relay's callbacks. */
  secret: string;
  fetch?: typeof fetch;
  retryDelaysMs?: number[];
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`: the relay checks freshness and origin. */
export function signBody(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * Off the request path; the outcome shows as the delivery status. Retries network errors
 * and 5xx: a duplicate email is a lesser harm than a lost one.
 */
export async function deliverInvitation(deps: DeliveryDeps, inv: IssuedInvitation, workspaceName: string): Promise<void> {
  if (!deps.relayUrl) return;
  const iso = () => new Date(deps.clock.now()).toISOString();
  await setStatus(deps.db, inv.id, 'queued', null, iso());
  const body = JSON.stringify({
    type: 'invitation',
    invitationId: inv.id,
    email: inv.email,
    role: inv.role,
    workspaceName,
    signUpUrl: inv.signUpUrl,
    expiresAt: inv.expiresAt,
  });
  const delays = deps.retryDelaysMs ?? [1000, 5000];
  let detail = '';
  for (let attempt = 0; attempt <= delays.length; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, delays[attempt - 1]));
    try {
      const res = await (deps.fetch ?? fetch)(deps.relayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-signature': signBody(deps.secret, body, Math.floor(deps.clock.now() / 1000)) },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      if (res.ok) {
        await setStatus(deps.db, inv.id, 'sent', null, iso());
        return;
      }
      detail = `relay answered ${res.status}`;
      if (res.status < 500) break;
    } catch (err) {
      detail = `relay unreachable: ${(err as Error).message}`;
    }
  }
  deps.log.warn('invitation email delivery failed', { invitationId: inv.id, detail });
  await setStatus(deps.db, inv.id, 'failed', detail, iso());
}

const RELAY_STATUSES = ['sent', 'delivered', 'bounced', 'failed'] as const;

/** The relay's callback; nothing changes without the shared secret header. */
export async function recordDeliveryResult(
  deps: Pick<DeliveryDeps, 'db' | 'clock' | 'secret'>,
  headerSecret: string | undefined,
  body: { invitationId: string; status: string; detail?: string | undefined },
): Promise<void> {
  if (!headerSecret || !safeEqual(headerSecret, deps.secret)) throw unauthorized('A valid x-svc-webhook-secret header is required.');
  if (!(RELAY_STATUSES as readonly string[]).includes(body.status)) {
    throw badRequest('invalid_status', `status must be one of ${RELAY_STATUSES.join(', ')}.`, 'status');
  }
  const changed = await setStatus(deps.db, body.invitationId, body.status as DeliveryStatus, body.detail ?? null, new Date(deps.clock.now()).toISOString());
  if (changed === 0) throw notFound('Invitation');
}
