// Issue 12, item 18 (and the run half of 17), on both stores: a queued run whose provider is down
// is not failed at once. An unambiguous failure — connection refused, 429, 503 with Retry-After:
// the provider served nothing — puts the run back in the queue with a backoff, and once the
// provider is up the run completes with exactly one served call. An ambiguous failure (a 500, a
// 503 without Retry-After) still fails the run at once and is never sent twice (the ledger rule).
// Retries stop within the 15-minute execution limit. Each failed run and each retry logs one
// warn line with the run id and the cause.
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import type { QueueWorker } from '../../../core/queue/worker.ts';
import { MINUTE, startRuns, until, type RunsEnv } from '../runs/setup.ts';

/** A TCP gate in front of the fake upstream: closed, connections to its port are refused. */
async function gate(targetPort: number) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const open = async () => {
    server = createServer((c) => {
      const u = connect(targetPort, '127.0.0.1');
      for (const s of [c, u]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => {});
      }
      c.pipe(u).pipe(c);
    });
    await new Promise<void>((r) => server!.listen(port, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  };
  const close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = undefined;
  };
  await open();
  return { url: () => `http://127.0.0.1:${port}/v1`, open, close };
}

for (const store of ['sqlite', 'postgres'] as const) {
  describe(`queued runs while the provider is down (${store})`, () => {
    let e: RunsEnv;
    let w: QueueWorker;
    let g: Awaited<ReturnType<typeof gate>>;
    let tok: string;
    let gated: string; // an agent whose provider account goes through the gate
    let direct: string; // an agent on the fake itself

    beforeAll(async () => {
      e = await startRuns({ store });
      g = await gate(Number(new URL(e.g.openai.origin).port));
      const acct = await e.app(e.g.people.owner, 'POST', '/api/app/provider-accounts', { provider: 'openai-compatible', name: 'Gate', slug: 'gate', baseUrl: g.url(), models: ['gpt-test'] });
      assert.equal(acct.status, 201, acct.text);
      tok = await e.token(e.g.people.member);
      gated = await e.agent(e.g.people.member, { providerAccountId: acct.body.id, model: 'gate/gpt-test' });
      direct = await e.agent(e.g.people.member);
      w = e.g.services.queue.worker({ concurrency: 1, leaseMs: 5000, maxIdleMs: 20 });
      void w.start();
    });
    afterAll(async () => {
      await w.stop(1000);
      await g.close();
      await e.close();
    });
    beforeEach(() => e.g.openai.reset());

    const start = async (agent: string) => {
      const r = await e.start(tok, agent, { inputText: 'hi', async: true });
      assert.equal(r.status, 202, r.text);
      return r.body.runId as string;
    };
    const read = async (agent: string, id: string) => (await e.read(tok, agent, id)).body;
    const retries = async (agent: string, id: string) => (await read(agent, id)).events.filter((x: { kind: string }) => x.kind === 'step.retrying').length;
    const ended = (agent: string, id: string) => until(async () => !['queued', 'running'].includes((await read(agent, id)).run.status), 'the run to end', 15_000);
    /** Waits for the next retry to be scheduled, then moves the store's clock past its backoff. */
    const nextRetry = async (agent: string, id: string, seen: number, advanceMs = 65_000) => {
      await until(async () => (await retries(agent, id)) > seen, `retry ${seen + 1}`, 10_000);
      e.g.fx.clock.advance(advanceMs);
    };
    const logs = (msg: string, runId: string) => e.g.fx.logs.filter((l) => l.msg === msg && l.runId === runId);

    test('connection refused, then the provider comes back: the run completes with exactly one served call', async () => {
      await g.close();
      e.g.openai.script({ text: 'back online', usage: { input: 3, output: 2 } });
      const id = await start(gated);
      await nextRetry(gated, id, 0, 5_000);
      const waiting = await read(gated, id);
      assert.equal(waiting.run.status, 'running', 'not failed: waiting for its retry');
      // A retry may be mid-attempt here (its row is written before the call and removed when refused):
      // no step is ever completed while the gate is shut, and the end state below has exactly one.
      assert.ok(waiting.steps.every((s: { status: string }) => s.status !== 'completed'), JSON.stringify(waiting.steps));
      assert.equal(e.g.openai.calls, 0);
      await g.open();
      e.g.fx.clock.advance(5_000);
      await ended(gated, id);
      const done = await read(gated, id);
      assert.equal(done.run.status, 'completed', JSON.stringify(done.run));
      assert.equal(done.run.outputText, 'back online');
      assert.equal(e.g.openai.calls, 1, 'exactly one call reached the provider');
      assert.deepEqual(done.steps.map((s: { kind: string; status: string }) => [s.kind, s.status]), [['model', 'completed']]);
      const warn = logs('model call refused before any work; the run will retry', id);
      assert.ok(warn.length >= 1);
      assert.match(String(warn[0]!.cause), /upstream_unavailable/);
      assert.equal(warn[0]!.level, 'warn');
    });

    test('429 and 503 with Retry-After: retried after the provider’s delay; one served call', async () => {
      e.g.openai.once({ fault: '429', retryAfter: '30' });
      e.g.openai.once({ fault: '5xx', status: 503, retryAfter: '30' });
      e.g.openai.script({ text: 'third time', usage: { input: 3, output: 2 } });
      const id = await start(direct);
      await nextRetry(direct, id, 0, 20_000);
      assert.equal((await read(direct, id)).run.status, 'running');
      e.g.fx.clock.advance(11_000); // 31 s in all: past Retry-After
      await nextRetry(direct, id, 1, 31_000);
      await ended(direct, id);
      const done = await read(direct, id);
      assert.equal(done.run.status, 'completed', JSON.stringify(done.run));
      assert.equal(done.run.outputText, 'third time');
      assert.equal(e.g.openai.calls, 3, 'two refusals, then the call that was served');
      const events = done.events.filter((x: { kind: string }) => x.kind === 'step.retrying');
      assert.ok(events.every((x: { data: { retryInMs: number } }) => x.data.retryInMs >= 30_000), 'never sooner than Retry-After');
    });

    test('an ambiguous failure (500, or 503 without Retry-After) is not retried: the run fails, one call, one warn line', async () => {
      for (const fault of [{ fault: '5xx' as const }, { fault: '5xx' as const, status: 503 }]) {
        e.g.openai.reset();
        e.g.openai.once(fault);
        e.g.openai.script({ text: 'must never be sent' });
        const id = await start(direct);
        await ended(direct, id);
        e.g.fx.clock.advance(MINUTE);
        await new Promise((r) => setTimeout(r, 100)); // a wrongly scheduled retry would run now
        const r = await read(direct, id);
        assert.equal(r.run.status, 'failed');
        assert.equal(r.run.errorCode, 'model_call_failed');
        assert.equal(e.g.openai.calls, 1, 'sent once, never again');
        assert.equal(await retries(direct, id), 0);
        const warn = logs('run failed', id);
        assert.equal(warn.length, 1);
        assert.equal(warn[0]!.level, 'warn');
        assert.equal(warn[0]!.code, 'model_call_failed');
        assert.match(String(warn[0]!.cause), /upstream failed \(50[03]\)/);
      }
    });

    test('a provider that stays down: retries stop within the 15-minute execution limit and the run fails', async () => {
      await g.close();
      const id = await start(gated);
      let n = 0;
      let seen = 0;
      const open = async () => ['queued', 'running'].includes((await read(gated, id)).run.status);
      while (await open()) {
        await until(async () => (await retries(gated, id)) > seen || !(await open()), 'a retry or the end', 10_000);
        // Counted before the clock moves: the next retry needs the jump, so it cannot be missed.
        seen = await retries(gated, id);
        e.g.fx.clock.advance(76_000); // past the longest backoff (60 s + 25% jitter)
        assert.ok(++n < 40, 'bounded');
      }
      const r = await read(gated, id);
      // Which end comes first depends on where the test's 76 s clock jumps land: the retry that
      // would pass the limit fails the run, or a claim that is already past it times it out.
      const ends: Record<string, string> = { failed: 'model_call_failed', timed_out: 'execution_time_limit' };
      assert.ok(r.run.status in ends, JSON.stringify(r.run));
      assert.equal(r.run.errorCode, ends[r.run.status]);
      const events = r.events.filter((x: { kind: string }) => x.kind === 'step.retrying');
      assert.ok(events.length >= 5, `${events.length} retries`);
      const claimed = Date.parse(r.events.find((x: { kind: string }) => x.kind === 'run.claimed').createdAt);
      assert.ok(Date.parse(r.run.finishedAt) - claimed < 15 * MINUTE + 76_000, 'within the execution limit');
      await g.open();
    });
  });
}
