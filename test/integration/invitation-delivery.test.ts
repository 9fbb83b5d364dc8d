// Invitation email delivery: svc POSTs a signed message to a real local relay off the request path,
// and the relay reports back on the shared-secret webhook. Both show as the delivery status.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { createApp, type App } from '../../daemon/app.ts';
import { testCore, type Fixture } from './http-fixture.ts';
import { account, call, eventually, startRelay, type Caller, type Relay } from './invitation-helpers.ts';

describe('invitation delivery relay and webhook', () => {
  let f: Fixture;
  let app: App;
  let owner: Caller;
  let relay: Relay;
  let secret: string;

  beforeAll(async () => {
    relay = await startRelay();
    f = await testCore({ env: { SERVICE_INVITATION_EMAIL_URL: relay.url } });
    app = createApp(f.core, f.services);
    owner = await account(f.core, 'owner@example.com');
    secret = f.core.secrets.SERVICE_INVITATION_EMAIL_SECRET;
  });
  afterAll(async () => {
    await f?.cleanup();
    await relay?.close();
  });

  const create = (email: string) => call(app, 'POST', '/api/app/invitations', { as: owner, body: { email, role: 'member' } });
  const statusOf = async (id: string) => {
    const r = await call(app, 'GET', '/api/app/invitations', { as: owner });
    const row = (r.json.data as Array<Record<string, unknown>>).find((i) => i.id === id)!;
    return { status: row.deliveryStatus as string, detail: row.deliveryDetail as string | null, invitation: row.status as string };
  };
  const webhook = (body: unknown, headers: Record<string, string> = {}) =>
    call(app, 'POST', '/api/public/webhooks/invitation-email', { body, headers });

  test('create posts a signed message to the relay; status goes queued → sent', async () => {
    relay.hold = true;
    const r = await create('relay@example.com');
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.deliveryStatus, 'queued', 'the answer does not wait for the relay');
    await relay.waitFor(1);
    assert.equal((await statusOf(r.json.id)).status, 'queued');

    const req = relay.requests[0]!;
    assert.equal(req.headers['content-type'], 'application/json');
    const sig = String(req.headers['x-svc-signature']);
    const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(sig);
    assert.ok(m, `signature header: ${sig}`);
    assert.equal(Number(m[1]), Math.floor(f.clock.now() / 1000));
    assert.equal(m[2], createHmac('sha256', secret).update(`${m[1]}.${req.body}`).digest('hex'));
    assert.notEqual(m[2], createHmac('sha256', 'another secret').update(`${m[1]}.${req.body}`).digest('hex'));
    const msg = JSON.parse(req.body);
    assert.equal(msg.invitationId, r.json.id);
    assert.equal(msg.email, 'relay@example.com');
    assert.equal(msg.role, 'member');
    assert.equal(msg.signUpUrl, r.json.signUpUrl);
    assert.equal(msg.expiresAt, r.json.expiresAt);
    assert.equal(msg.workspaceName, "owner's workspace");

    relay.release();
    await eventually(async () => (await statusOf(r.json.id)).status === 'sent', 'delivery status sent');
  });

  test('resend delivers the new link', async () => {
    const first = (await create('resend@example.com')).json;
    await eventually(async () => (await statusOf(first.id)).status === 'sent', 'first delivery');
    const n = relay.requests.length;
    const r = await call(app, 'POST', `/api/app/invitations/${first.id}/resend`, { as: owner });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.deliveryStatus, 'queued');
    await relay.waitFor(n + 1);
    assert.equal(JSON.parse(relay.requests[n]!.body).signUpUrl, r.json.signUpUrl);
    assert.notEqual(r.json.signUpUrl, first.signUpUrl);
    await eventually(async () => (await statusOf(first.id)).status === 'sent', 'resend delivery');
  });

  test('a relay answering 500 is retried, then the status is failed; the client never sees it', async () => {
    relay.status = 500;
    try {
      const n = relay.requests.length;
      const r = await create('fails@example.com');
      assert.equal(r.status, 201, r.text);
      // Default retry schedule: 1 s and 5 s, so three attempts within about 6 s.
      await eventually(async () => (await statusOf(r.json.id)).status === 'failed', 'delivery status failed', 20_000);
      assert.equal(relay.requests.length - n, 3, 'one attempt and two retries');
      const s = await statusOf(r.json.id);
      assert.equal(s.detail, 'relay answered 500');
      assert.equal(s.invitation, 'pending', 'a failed email does not affect the invitation');
      assert.ok(f.logs.some((l) => l.msg === 'invitation email delivery failed' && l.invitationId === r.json.id));
    } finally {
      relay.status = 202;
    }
  });

  describe('webhook', () => {
    let id: string;
    beforeAll(async () => {
      id = (await create('hook@example.com')).json.id;
      await eventually(async () => (await statusOf(id)).status === 'sent', 'delivery');
    });

    test('a wrong or missing secret is 401 and changes nothing', async () => {
      const body = { invitationId: id, status: 'bounced', detail: 'mailbox full' };
      const attempts: Array<Record<string, string>> = [{}, { 'x-svc-webhook-secret': 'wrong' }, { 'x-svc-webhook-secret': `${secret}x` }, { 'x-svc-webhook-secret': '' }];
      for (const headers of attempts) {
        const r = await webhook(body, headers);
        assert.equal(r.status, 401, `${JSON.stringify(headers)}: ${r.text}`);
        assert.equal(r.json.error.code, 'unauthorized');
      }
      // Another configured secret is not this one.
      const other = await webhook(body, { 'x-svc-webhook-secret': f.core.secrets.SERVICE_WEBHOOK_SECRET });
      assert.equal(other.status, 401);
      assert.deepEqual(await statusOf(id), { status: 'sent', detail: null, invitation: 'pending' });
    });

    test('the secret is checked before the body is read', async () => {
      const r = await webhook('not json', { 'x-svc-webhook-secret': 'wrong' });
      assert.equal(r.status, 401, r.text);
      const r2 = await webhook({ junk: true }, {});
      assert.equal(r2.status, 401, r2.text);
    });

    test('the right secret updates the delivery status', async () => {
      const r = await webhook({ invitationId: id, status: 'delivered' }, { 'x-svc-webhook-secret': secret });
      assert.equal(r.status, 204, r.text);
      assert.equal(r.text, '');
      assert.deepEqual(await statusOf(id), { status: 'delivered', detail: null, invitation: 'pending' });
      const b = await webhook({ invitationId: id, status: 'bounced', detail: 'mailbox full' }, { 'x-svc-webhook-secret': secret });
      assert.equal(b.status, 204, b.text);
      assert.deepEqual(await statusOf(id), { status: 'bounced', detail: 'mailbox full', invitation: 'pending' });
    });

    test('an unknown invitation is 404', async () => {
      const r = await webhook({ invitationId: 'inv_00000000000000000000', status: 'sent' }, { 'x-svc-webhook-secret': secret });
      assert.equal(r.status, 404, r.text);
    });

    test('a bad body is 400 and changes nothing', async () => {
      const before = await statusOf(id);
      const bad: unknown[] = [
        { invitationId: id, status: 'opened' },
        { invitationId: id, status: 'sent', extra: 1 },
        { invitationId: id },
        { status: 'sent' },
        { invitationId: id, status: 'sent', detail: 'x'.repeat(1001) },
        'not json',
      ];
      for (const body of bad) {
        const r = await webhook(body, { 'x-svc-webhook-secret': secret });
        assert.equal(r.status, 400, `${JSON.stringify(body)} → ${r.text}`);
      }
      assert.deepEqual(await statusOf(id), before);
    });
  });
});
