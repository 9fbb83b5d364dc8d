// Inbound triggers over HTTP: Worker webhook refs (202 → the run completes under a queue worker),
// body → input rendering, rotation, disabled/deleted Workers, one identical 404 for every miss,
// the body limit, the legacy agent token, and access logs that keep only 4 characters of a ref.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { issueToken } from '../../../core/auth/tokens.ts';
import type { QueueWorker } from '../../../core/queue/worker.ts';
import { startRuns, until, type RunsEnv } from '../runs/setup.ts';

for (const store of ['sqlite', 'postgres'] as const) {
  describe(`webhook triggers (${store})`, () => {
    let e: RunsEnv;
    let agent: string;
    let w: QueueWorker | undefined;
    beforeAll(async () => {
      e = await startRuns({ store });
      agent = await e.agent(e.g.people.member);
    });
    afterAll(async () => {
      await w?.stop(1000);
      await e.close();
    });
    const post = async (path: string, body: string, type = 'application/json') => {
      const r = await fetch(`${e.g.base}${path}`, { method: 'POST', headers: { 'content-type': type }, body });
      const text = await r.text();
      return { status: r.status, text, body: text ? JSON.parse(text) : undefined, headers: r.headers };
    };
    const worker = async (over: Record<string, unknown> = {}) => {
      const r = await e.app(e.g.people.member, 'POST', '/api/app/workers', { name: 'hook', agentId: agent, inputTemplate: 'Title: {{json.issue.title}} | raw: {{body}}', ...over });
      assert.equal(r.status, 201, r.text);
      return r.body as { id: string; token: string };
    };
    const runRow = (id: string) => e.g.core.db.one<{ input_text: string; user_id: string; worker_id: string | null; status: string; output_text: string | null }>('SELECT * FROM runs WHERE id = ?', [id]);

    test('202 queued; the body renders into the input; a queue worker completes the run as the owner', async () => {
      const wk = await worker();
      e.g.openai.script({ text: 'triaged', usage: { input: 2, output: 1 } });
      const body = JSON.stringify({ issue: { title: 'Crash on save' } });
      const r = await post(`/api/public/webhooks/workers/${wk.token}`, body);
      assert.equal(r.status, 202, r.text);
      assert.deepEqual(Object.keys(r.body).sort(), ['conversationId', 'runId', 'status']);
      assert.equal(r.body.status, 'queued');
      assert.match(r.body.runId, /^run_/);
      assert.equal(r.headers.get('cache-control'), 'no-store');
      const row = await runRow(r.body.runId);
      assert.equal(row?.input_text, `Title: Crash on save | raw: ${body}`);
      assert.equal(row?.user_id, e.g.people.member.userId);
      assert.equal(row?.worker_id, wk.id);
      w = e.g.services.queue.worker({ concurrency: 2, leaseMs: 5000, maxIdleMs: 20 });
      void w.start();
      await until(async () => (await runRow(r.body.runId))?.status === 'completed', 'the webhook run to complete', 10_000);
      assert.equal((await runRow(r.body.runId))?.output_text, 'triaged');
      // The owner reads it through the run API like any run of theirs.
      const read = await e.read(await e.token(e.g.people.member), agent, r.body.runId);
      assert.equal(read.body.run.status, 'completed');
    });

    test('any content type: a text body is inserted raw; json fields of a non-JSON body are empty', async () => {
      const wk = await worker();
      const r = await post(`/api/public/webhooks/workers/${wk.token}`, 'just text {', 'text/plain');
      assert.equal(r.status, 202, r.text);
      assert.equal((await runRow(r.body.runId))?.input_text, 'Title:  | raw: just text {');
      const none = await fetch(`${e.g.base}/api/public/webhooks/workers/${wk.token}`, { method: 'POST' });
      assert.equal(none.status, 202, 'an empty body is fine');
    });

    test('one identical 404 for malformed, bad checksum, unknown, rotated, disabled and deleted refs', async () => {
      const a = await worker();
      const rotated = await worker();
      const rot = await e.app(e.g.people.member, 'POST', `/api/app/workers/${rotated.id}/rotate-webhook`);
      const disabled = await worker({ enabled: false });
      const deleted = await worker();
      assert.equal((await e.app(e.g.people.member, 'DELETE', `/api/app/workers/${deleted.id}`)).status, 204);
      const flip = a.token.slice(0, -1) + (a.token.endsWith('A') ? 'B' : 'A');
      const misses = ['abc', flip, issueToken('webhook'), rotated.token, disabled.token, deleted.token, issueToken('share')];
      const texts = new Set<string>();
      for (const ref of misses) {
        const r = await post(`/api/public/webhooks/workers/${ref}`, '{}');
        assert.equal(r.status, 404, `${ref.slice(0, 12)}: ${r.text}`);
        texts.add(r.text);
      }
      assert.equal(texts.size, 1, `bodies differ: ${[...texts].join(' / ')}`);
      assert.equal((await post(`/api/public/webhooks/workers/${rot.body.token}`, '{}')).status, 202, 'the new ref works');
      // Re-enabling brings the disabled one back; a worker's ref never triggers the legacy route.
      assert.equal((await e.app(e.g.people.member, 'PATCH', `/api/app/workers/${disabled.id}`, { enabled: true })).status, 200);
      assert.equal((await post(`/api/public/webhooks/workers/${disabled.token}`, '{}')).status, 202);
      assert.equal((await post(`/api/public/webhooks/agents/${a.token}`, '{}')).status, 404);
    });

    test('body limit: 413 past 64 KiB (checked only once the ref matched)', async () => {
      const wk = await worker();
      const big = 'x'.repeat(64 * 1024 + 1);
      assert.equal((await post(`/api/public/webhooks/workers/${wk.token}`, big, 'text/plain')).status, 413);
      assert.equal((await post(`/api/public/webhooks/workers/${issueToken('webhook')}`, big, 'text/plain')).status, 404);
    });

    test('legacy agent token: queues a run as the issuer; reissuing and DELETE invalidate', async () => {
      const a = await e.agent(e.g.people.member);
      const t1 = (await e.app(e.g.people.member, 'POST', `/api/app/agents/${a}/webhook-token`)).body.token as string;
      const r = await post(`/api/public/webhooks/agents/${t1}`, 'do the thing', 'text/plain');
      assert.equal(r.status, 202, r.text);
      const row = await runRow(r.body.runId);
      assert.deepEqual([row?.input_text, row?.user_id, row?.worker_id], ['do the thing', e.g.people.member.userId, null]);
      const t2 = (await e.app(e.g.people.member, 'POST', `/api/app/agents/${a}/webhook-token`)).body.token as string;
      const miss = await post(`/api/public/webhooks/agents/${t1}`, 'x');
      assert.equal(miss.status, 404);
      assert.equal((await post(`/api/public/webhooks/agents/${t2}`, 'x')).status, 202);
      assert.equal((await e.app(e.g.people.member, 'DELETE', `/api/app/agents/${a}/webhook-token`)).status, 204);
      const gone = await post(`/api/public/webhooks/agents/${t2}`, 'x');
      assert.equal(gone.status, 404);
      assert.equal(gone.text, miss.text);
      assert.equal((await post('/api/public/webhooks/agents/garbage', 'x')).text, miss.text);
    });

    test('access logs keep only the first 4 characters of a ref', async () => {
      const wk = await worker();
      const before = e.g.fx.logs.length;
      assert.equal((await post(`/api/public/webhooks/workers/${wk.token}`, '{}')).status, 202);
      assert.equal((await post(`/api/public/webhooks/workers/${wk.token}x`, '{}')).status, 404);
      const lines = e.g.fx.logs.slice(before);
      const req = lines.filter((l) => l.msg === 'request' || l.message === 'request');
      assert.ok(req.length >= 2, JSON.stringify(lines).slice(0, 500));
      for (const l of req) assert.equal(l.path, '/api/public/webhooks/workers/svc_…');
      const all = JSON.stringify(e.g.fx.logs);
      assert.ok(!all.includes(wk.token.slice(8, 20)), 'no part of the ref past its prefix is logged');
    });
  });
}
