// Runs from the workbench, in process with a real queue worker: a run started by the form is
// queued (durable) and followed by the live fragment; Reject on the run page cancels it; another
// user cannot see, follow or decide it; a signed-out fragment request is a 401, not a redirect.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createAgent, publishAgent } from '../../core/agents/service.ts';
import { createAccount } from '../../core/provider-accounts/service.ts';
import type { QueueWorker } from '../../core/queue/worker.ts';
import { createApp, type App } from '../../daemon/app.ts';
import { fakeOpenAi, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { testCore, type Fixture } from './http-fixture.ts';
import { cast, type Cast, type Person } from './people.ts';

const cookieOf = (p: Person) => ({ cookie: `service_session=${p.token}; service_csrf=${p.csrf}` });
const post = (path: string, p: Person, fields: Record<string, string>) => ({
  method: 'POST',
  headers: { ...cookieOf(p), 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ _csrf: p.csrf, ...fields }).toString(),
});

describe('workbench runs (in process, queued)', () => {
  let fx: Fixture;
  let app: App;
  let people: Cast;
  let up: FakeUpstream;
  let worker: QueueWorker;
  let agentId: string;

  beforeAll(async () => {
    fx = await testCore({ env: { SERVICE_TOOL_HTTP_ALLOW_PRIVATE: 'true', SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
    app = createApp(fx.core, fx.services);
    people = await cast(fx.core);
    up = await fakeOpenAi();
    const owner = { userId: people.owner.userId, workspaceId: people.owner.ownWorkspace, role: 'owner' as const };
    const accounts = fx.services.gateway.accounts;
    const pa = await createAccount(accounts, owner.workspaceId, owner.userId, { provider: 'openai-compatible', name: 'fake', slug: 'fake', baseUrl: up.url, models: ['m'] });
    const deps = { db: fx.core.db, clock: fx.core.clock, accounts };
    const a = await createAgent(deps, owner, { name: 'Asker', instructions: 'x', providerAccountId: pa.id, model: 'fake/m', tools: [{ type: 'http_request', approval: 'always' }] });
    await publishAgent(deps, owner, a.id);
    agentId = a.id;
    worker = fx.services.queue.worker({ concurrency: 1, leaseMs: 5000, maxIdleMs: 10 });
    void worker.start();
  });
  // Optional chaining: a failed before() must still close what it opened, or the file never ends.
  afterAll(async () => {
    await worker?.stop();
    await up?.close();
    await fx?.cleanup();
  });

  async function fragment(runId: string, p: Person = people.owner): Promise<string> {
    const res = await app.request(`/runs/${runId}/live`, { headers: cookieOf(p) });
    assert.equal(res.status, 200);
    return res.text();
  }

  test('start from the form → queued run → waiting for approval → Reject cancels it', async () => {
    up.once({ toolCalls: [{ name: 'http_request', arguments: JSON.stringify({ method: 'GET', url: `${up.url}/models` }) }] });
    const start = await app.request(`/agents/${agentId}/runs`, post(`/agents/${agentId}/runs`, people.owner, { inputText: 'look it up' }));
    assert.equal(start.status, 303);
    const runId = /^\/runs\/(run_[0-9a-z]+)$/.exec(start.headers.get('location') ?? '')![1]!;
    const row = await fx.core.db.one<{ durable: number }>('SELECT durable FROM runs WHERE id = ?', [runId]);
    assert.equal(Number(row!.durable), 1, 'a browser run goes through the durable queue');

    let html = '';
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 25))) {
      html = await fragment(runId);
      if (html.includes('Approval needed')) break;
    }
    assert.match(html, /Approval needed/);
    assert.doesNotMatch(html, /data-terminal/);

    // Another user (even an admin) cannot see another's run, follow it or decide its approval.
    const other = await app.request(`/runs/${runId}/approval`, post('', people.admin, { decision: 'approve' }));
    assert.equal(other.status, 404);
    assert.equal((await app.request(`/runs/${runId}/live`, { headers: cookieOf(people.admin) })).status, 404);

    const bad = await app.request(`/runs/${runId}/approval`, post('', people.owner, { decision: 'maybe' }));
    assert.equal(bad.status, 400);
    const reject = await app.request(`/runs/${runId}/approval`, post('', people.owner, { decision: 'reject' }));
    assert.equal(reject.status, 303);
    html = await fragment(runId);
    assert.match(html, /data-terminal/);
    assert.match(html, /cancelled/);
    assert.match(html, /approval_rejected/);
    assert.equal(up.calls, 1, 'the tool call was never made, and the model not asked again');
  });

  test('signed out, the live fragment is a 401 (the page script stops), not a redirect to sign in', async () => {
    const res = await app.request('/runs/run_00000000000000000000/live');
    assert.equal(res.status, 401);
  });
});
