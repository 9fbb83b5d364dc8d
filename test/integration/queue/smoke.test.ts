import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { StoreBusy } from '../../../core/store/types.ts';
import type { QueueWorker } from '../../../core/queue/worker.ts';
import { startRuns, type RunsEnv } from '../runs/setup.ts';

for (const store of ['sqlite', 'postgres'] as const) {
  describe(`queued runs (${store})`, () => {
    let e: RunsEnv;
    let w: QueueWorker;
    beforeAll(async () => {
      e = await startRuns({ store });
    });
    afterAll(async () => {
      await w?.stop(1000);
      await e.close();
    });
    test('async → 202 queued; a worker claims it and it completes', async () => {
      const tok = await e.token(e.g.people.member);
      const agent = await e.agent(e.g.people.member);
      e.g.openai.script({ text: 'queued answer', usage: { input: 3, output: 2 } });
      const r = await e.start(tok, agent, { inputText: 'hi', async: true });
      assert.equal(r.status, 202, r.text);
      assert.equal(r.body.status, 'queued');
      assert.ok(r.headers.get('x-ratelimit-limit'));
      const pref = await e.start(tok, agent, { inputText: 'hi again' }, { Prefer: 'respond-async' });
      assert.equal(pref.status, 202);
      assert.equal((await e.read(tok, agent, r.body.runId)).body.run.status, 'queued', 'nothing runs queued work yet');
      w = e.g.services.queue.worker({ concurrency: 2, leaseMs: 5000 });
      void w.start();
      for (const id of [r.body.runId, pref.body.runId]) {
        const deadline = Date.now() + 10_000;
        let s = '';
        while (Date.now() < deadline) {
          s = (await e.read(tok, agent, id)).body.run.status;
          if (s === 'completed') break;
          await new Promise((res) => setTimeout(res, 20));
        }
        assert.equal(s, 'completed');
      }
      const read = await e.read(tok, agent, r.body.runId);
      assert.equal(read.body.run.outputText, 'queued answer');
      assert.equal(read.body.run.durable, true);
      assert.ok(read.body.events.some((x: { kind: string }) => x.kind === 'run.claimed'));
    });
    test('a store fault while resolving the model target is retried, not a failed run', async () => {
      // Seen in the PostgreSQL fault test: a connection dropped during the provider-account lookup
      // ended the run as `provider_invalid`. Nothing had been called yet, so the job must retry.
      const tok = await e.token(e.g.people.member);
      const agent = await e.agent(e.g.people.member);
      e.g.openai.script({ text: 'after the hiccup', usage: { input: 3, output: 2 } });
      // The start checks the target itself (a 503 there is the caller's to retry); the fault is
      // armed once the run is queued, with no worker running, so it hits the worker's lookup.
      await w?.stop(1000);
      const r = await e.start(tok, agent, { inputText: 'hi', async: true });
      assert.equal(r.status, 202, r.text);
      const catalogue = e.g.services.gateway.catalogue;
      let faults = 0;
      const resolve = catalogue.resolve.bind(catalogue);
      catalogue.resolve = async (...args) => {
        if (faults++ === 0) throw new StoreBusy(new Error('Connection terminated unexpectedly'));
        return resolve(...args);
      };
      w = e.g.services.queue.worker({ concurrency: 2, leaseMs: 5000 });
      void w.start();
      try {
        const deadline = Date.now() + 15_000;
        let run: { status: string; outputText?: string; errorCode?: string } = { status: '' };
        let advanced = false;
        while (Date.now() < deadline) {
          run = (await e.read(tok, agent, r.body.runId)).body.run;
          if (run.status !== 'queued' && run.status !== 'running') break;
          // The retry is due after a backoff on the store's (manual) clock: move past it once.
          if (faults === 1 && !advanced) {
            advanced = true;
            e.g.fx.clock.advance(60_000);
          }
          await new Promise((res) => setTimeout(res, 50));
        }
        assert.ok(faults >= 2, `the fault was hit and the target resolved again (${faults} calls): ${JSON.stringify(run)}`);
        assert.equal(run.status, 'completed', JSON.stringify(run));
        assert.equal(run.outputText, 'after the hiccup');
      } finally {
        delete (catalogue as { resolve?: unknown }).resolve;
      }
    });
  });
}
