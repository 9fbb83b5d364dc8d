// End-of-run notifications of Workers: a local receiver checks the signature and the payload; a
// failing receiver is retried with backoff (manual clock) while the run's status stays as it ended;
// a notifyUrl that resolves to a private address is refused by the SSRF guard when not allowed.
import assert from 'node:assert/strict';
import { createHmac, hkdfSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { QueueWorker } from '../../../core/queue/worker.ts';
import { startRuns, until, type RunsEnv } from '../runs/setup.ts';

interface Hit {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

async function receiver(): Promise<{ url: string; hits: Hit[]; status: { code: number }; close(): Promise<void> }> {
  const hits: Hit[] = [];
  const status = { code: 200 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status.code).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://localhost:${port}/hook`, hits, status, close: () => new Promise((r) => server.close(() => r())) };
}

async function setup(env: Record<string, string> = {}) {
  const e = await startRuns({ env });
  const agent = await e.agent(e.g.people.member);
  const rx = await receiver();
  const w = e.g.services.queue.worker({ concurrency: 2, leaseMs: 5000, maxIdleMs: 10 });
  void w.start();
  const events = async (runId: string) =>
    (await e.g.core.db.all<{ kind: string; data: string }>('SELECT kind, data FROM run_events WHERE run_id = ? ORDER BY seq', [runId])).map((x) => ({ kind: x.kind, data: JSON.parse(x.data) }));
  const status = async (runId: string) => (await e.g.core.db.one<{ status: string }>('SELECT status FROM runs WHERE id = ?', [runId]))?.status;
  const fire = async (notifyUrl: string) => {
    const wk = await e.app(e.g.people.member, 'POST', '/api/app/workers', { name: 'n', agentId: agent, inputTemplate: '{{body}}', notifyUrl });
    assert.equal(wk.status, 201, wk.text);
    const r = await fetch(`${e.g.base}/api/public/webhooks/workers/${wk.body.token}`, { method: 'POST', body: 'go' });
    assert.equal(r.status, 202);
    return { workerId: wk.body.id as string, runId: ((await r.json()) as { runId: string }).runId };
  };
  return { e, agent, rx, w, events, status, fire, close: async () => (await w.stop(1000), await rx.close(), await e.close()) };
}

describe('worker notifications', () => {
  let s: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    s = await setup();
  });
  afterAll(() => s.close());

  test('signed POST with the run outcome; the receiver can verify it', async () => {
    s.e.g.openai.script({ text: 'all done', usage: { input: 1, output: 1 } });
    const { runId, workerId } = await s.fire(s.rx.url);
    await until(() => s.rx.hits.length === 1, 'the notification', 10_000);
    const hit = s.rx.hits[0]!;
    const payload = JSON.parse(hit.body);
    assert.deepEqual(
      { ...payload, finishedAt: typeof payload.finishedAt },
      { type: 'run.finished', runId, workerId, agentId: s.agent, status: 'completed', outputText: 'all done', finishedAt: 'string' },
    );
    assert.equal(hit.headers['content-type'], 'application/json');
    assert.equal(hit.headers['x-svc-event'], 'run.finished');
    // What a receiver does: derive the key from SERVICE_WEBHOOK_SECRET, check t and the MAC.
    const key = Buffer.from(hkdfSync('sha256', s.e.g.core.secrets.SERVICE_WEBHOOK_SECRET, Buffer.alloc(0), 'svc:worker-notify:v1', 32));
    const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(hit.headers['x-svc-signature']));
    assert.ok(m, String(hit.headers['x-svc-signature']));
    assert.equal(Number(m[1]), Math.floor(s.e.g.core.clock.now() / 1000));
    assert.equal(m[2], createHmac('sha256', key).update(`${m[1]}.${hit.body}`).digest('hex'));
    assert.notEqual(m[2], createHmac('sha256', key).update(`${m[1]}.${hit.body} `).digest('hex'));
    await until(async () => (await s.events(runId)).some((x) => x.kind === 'notify.sent'), 'notify.sent event');
    assert.equal(await s.status(runId), 'completed');
  });

  test('a failed run is notified with its error', async () => {
    s.e.g.openai.once({ status: 400, errorBody: { error: { message: 'bad request upstream' } } });
    const before = s.rx.hits.length;
    const { runId } = await s.fire(s.rx.url);
    await until(() => s.rx.hits.length === before + 1, 'the notification', 10_000);
    const payload = JSON.parse(s.rx.hits.at(-1)!.body);
    assert.equal(payload.runId, runId);
    assert.equal(payload.status, 'failed');
    assert.equal(typeof payload.error, 'string');
    assert.equal(payload.outputText, undefined);
  });

  test('a receiver answering 500 gets retries with growing backoff; the run stays completed', async () => {
    s.rx.status.code = 500;
    s.e.g.openai.script({ text: 'fine', usage: { input: 1, output: 1 } });
    const before = s.rx.hits.length;
    const { runId } = await s.fire(s.rx.url);
    const failures = async () => (await s.events(runId)).filter((x) => x.kind === 'notify.failed').map((x) => x.data);
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      await until(async () => (await failures()).length === attempt, `failure ${attempt}`, 10_000);
      assert.equal(s.rx.hits.length, before + attempt, 'exactly one request per attempt');
      const f = (await failures())[attempt - 1]!;
      assert.equal(f.attempt, attempt);
      assert.match(f.error, /500/);
      const base = 5000 * 2 ** (attempt - 1);
      assert.ok(f.retryInMs >= base && f.retryInMs <= base * 1.1, `attempt ${attempt} backoff ${f.retryInMs}`);
      waits.push(f.retryInMs);
      assert.equal(await s.status(runId), 'completed', 'the run is not affected');
      // Nothing more is sent before the backoff passes.
      s.e.g.fx.clock.advance(f.retryInMs - 1000);
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(s.rx.hits.length, before + attempt, 'no retry before the backoff');
      if (attempt === 3) s.rx.status.code = 200;
      s.e.g.fx.clock.advance(1000);
    }
    await until(async () => (await s.events(runId)).some((x) => x.kind === 'notify.sent'), 'delivered on the 4th attempt', 10_000);
    assert.equal(s.rx.hits.length, before + 4);
    assert.ok(waits[0]! < waits[1]! && waits[1]! < waits[2]!);
    const job = await s.e.g.core.db.one<{ status: string; attempts: number }>("SELECT status, attempts FROM jobs WHERE kind = 'worker.notify' AND run_id = ?", [runId]);
    assert.deepEqual({ ...job, attempts: Number(job?.attempts) }, { status: 'done', attempts: 4 });
    assert.equal(await s.status(runId), 'completed');
  });

  test('a 4xx answer is final (no retry)', async () => {
    s.rx.status.code = 410;
    s.e.g.openai.script({ text: 'x', usage: { input: 1, output: 1 } });
    const before = s.rx.hits.length;
    const { runId } = await s.fire(s.rx.url);
    await until(async () => (await s.events(runId)).some((x) => x.kind === 'notify.failed' && x.data.final === true), 'final failure', 10_000);
    s.e.g.fx.clock.advance(10 * 60_000);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(s.rx.hits.length, before + 1);
    s.rx.status.code = 200;
  });
});

describe('worker notifications: SSRF guard', () => {
  let s: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    s = await setup({ SERVICE_TOOL_HTTP_ALLOW_PRIVATE: 'false' });
  });
  afterAll(() => s.close());

  test('a literal private address is refused when the Worker is saved', async () => {
    const r = await s.e.app(s.e.g.people.member, 'POST', '/api/app/workers', { name: 'n', agentId: s.agent, inputTemplate: 'x', notifyUrl: 'http://127.0.0.1:9/x' });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.field, 'notifyUrl');
  });

  test('a hostname resolving to loopback is blocked at send time; nothing is sent; the run is unaffected', async () => {
    s.e.g.openai.script({ text: 'done', usage: { input: 1, output: 1 } });
    const { runId } = await s.fire(s.rx.url); // http://localhost:<port>/hook
    await until(async () => (await s.events(runId)).some((x) => x.kind === 'notify.failed'), 'the refusal', 10_000);
    const f = (await s.events(runId)).find((x) => x.kind === 'notify.failed')!.data;
    assert.match(f.error, /blocked: .*not a public address/);
    assert.equal(f.final, true);
    assert.equal(s.rx.hits.length, 0);
    assert.equal(await s.status(runId), 'completed');
  });
});
