// The documented examples of the routes issue 17 names (sign-up, sign-in and its CSRF value,
// provider accounts and their slug, agent create/patch/publish/share, invitations) work as written
// against the real app (only the `…` placeholders are replaced by the ids the journey created), and
// the documented answers have the shape of the real ones.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { createApp, type App } from '../../daemon/app.ts';
import { OPERATIONS } from '../../daemon/openapi/operations.ts';
import { testCore, type Fixture } from './http-fixture.ts';

type Body = Record<string, unknown>;

/** The documented example of an operation, with `…` placeholders replaced. */
function example(method: string, path: string, fill: Record<string, string> = {}): Body {
  const op = OPERATIONS.find((o) => o.method === method && o.path === path);
  assert.ok(op?.request?.example, `${method} ${path} has an example`);
  return JSON.parse(JSON.stringify(op.request.example), (_k, v: unknown) => (typeof v === 'string' && v in fill ? fill[v] : v)) as Body;
}

/** Keys all the way down (arrays by their first element): what a documented answer must match. */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return v.length > 0 ? [shape(v[0])] : [];
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, shape((v as Body)[k])]));
  return v === null ? null : typeof v;
}

/** The documented answer of an operation has the shape of the real one. */
function answers(method: string, path: string, real: unknown): void {
  const op = OPERATIONS.find((o) => o.method === method && o.path === path);
  assert.ok(op?.responseExample, `${method} ${path} documents an answer`);
  assert.deepEqual(shape(op.responseExample), shape(real), `${method} ${path}: documented answer vs real answer`);
}

describe('documented examples, sent as written', () => {
  let fx: Fixture;
  let app: App;
  beforeAll(async () => {
    fx = await testCore({ env: { SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
    app = createApp(fx.core, fx.services);
  });
  afterAll(() => fx.cleanup());

  const send = async (method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await app.request(path, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (res.status === 204 ? null : await res.json()) as Body & { error?: unknown }, cookies: res.headers.getSetCookie() };
  };

  test('sign-up, sign-in, provider accounts, an agent published and shared, with the documented bodies', async () => {
    // The bootstrap owner (an empty store needs no invitation), then the login example signs in.
    const { invitationToken: _, ...owner } = example('POST', '/api/auth/register');
    assert.equal((await send('POST', '/api/auth/register', owner)).status, 201);
    const login = await send('POST', '/api/auth/login', example('POST', '/api/auth/login'));
    assert.equal(login.status, 200, JSON.stringify(login.body));
    answers('POST', '/api/auth/login', login.body);
    // The CSRF value is the service_csrf cookie set beside the session, as the document says.
    const cookie = (name: string) => login.cookies.map((c) => c.split(';')[0]!).find((c) => c.startsWith(`${name}=`))!;
    const csrf = cookie('service_csrf').split('=')[1]!;
    const auth = { cookie: `${cookie('service_session')}; ${cookie('service_csrf')}`, 'x-csrf-token': csrf };
    const call = (method: string, path: string, body?: unknown) => send(method, path, body, auth);

    // Provider account: no slug given, so it is derived from the name; the same body again gets another.
    const acct = { ...example('POST', '/api/app/provider-accounts'), baseUrl: 'http://127.0.0.1:9/v1' };
    const first = await call('POST', '/api/app/provider-accounts', acct);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.slug, 'lab-vllm');
    answers('POST', '/api/app/provider-accounts', first.body);
    const second = await call('POST', '/api/app/provider-accounts', acct);
    assert.equal(second.status, 201, JSON.stringify(second.body));
    assert.notEqual(second.body.slug, 'lab-vllm');
    assert.equal((await call('PATCH', `/api/app/provider-accounts/${first.body.id}`, example('PATCH', '/api/app/provider-accounts/{id}'))).status, 200);
    assert.equal((await call('PATCH', `/api/app/provider-accounts/${first.body.id}`, { models: ['llama-3.1-8b'] })).status, 200);

    // Agent: create (the example's model is the example account's), edit, publish.
    const agent = await call('POST', '/api/app/agents', example('POST', '/api/app/agents', { 'pa_…': String(first.body.id) }));
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    const id = String(agent.body.id);
    answers('POST', '/api/app/agents', agent.body);
    const patched = await call('PATCH', `/api/app/agents/${id}`, example('PATCH', '/api/app/agents/{id}'));
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    answers('PATCH', '/api/app/agents/{id}', patched.body);
    const published = await call('POST', `/api/app/agents/${id}/publish`);
    assert.equal(published.status, 201, JSON.stringify(published.body));
    assert.equal(published.body.version, 1);
    answers('POST', '/api/app/agents/{id}/publish', published.body);

    // A member by the invitation example and the register example, then the share examples.
    const inv = await call('POST', '/api/app/invitations', example('POST', '/api/app/invitations'));
    assert.equal(inv.status, 201, JSON.stringify(inv.body));
    answers('POST', '/api/app/invitations', inv.body);
    const grace = await send('POST', '/api/auth/register', example('POST', '/api/auth/register', { 'ada@example.com': 'grace@example.com', 'svc_inv_…': String(inv.body.token) }));
    assert.equal(grace.status, 201, JSON.stringify(grace.body));
    answers('POST', '/api/auth/register', grace.body);
    const graceId = String((grace.body.user as Body).id);
    const shared = await call('POST', `/api/app/agents/${id}/shares`, example('POST', '/api/app/agents/{id}/shares', { 'usr_…': graceId }));
    assert.equal(shared.status, 200, JSON.stringify(shared.body));
    assert.deepEqual(shared.body.userIds, [graceId]);
    answers('POST', '/api/app/agents/{id}/shares', shared.body);
    const unshared = await call('DELETE', `/api/app/agents/${id}/shares`, example('DELETE', '/api/app/agents/{id}/shares'));
    assert.equal(unshared.status, 200, JSON.stringify(unshared.body));
    assert.equal(unshared.body.workspace, false);
    answers('DELETE', '/api/app/agents/{id}/shares', unshared.body);
  });
});
