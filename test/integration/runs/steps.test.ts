// Steps, events and usage through HTTP, on both stores: a two-step run (the model asks for
// http_request, the tool calls a real local server, the model answers) records model/tool steps in
// order with usage per call (cached and reasoning splits) and totals naming provider and model; the
// list is the caller's 25 most recent runs, newest first, with usage summaries.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import type { Dialect } from '../../../core/store/types.ts';
import { startTestServer, type TestServer } from '../../helpers/http-target.ts';
import { httpCall, startRuns, type RunsEnv } from './setup.ts';

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`run steps, events, usage (${store})`, () => {
    let r: RunsEnv;
    let target: TestServer;
    let token: string;
    let agentId: string;

    beforeAll(async () => {
      r = await startRuns({ store });
      target = await startTestServer();
      token = await r.token(r.g.people.member);
      agentId = await r.agent(r.g.people.member, { instructions: 'Use tools.', tools: [{ type: 'http_request' }] });
    });
    afterAll(async () => {
      await target.close();
      await r.close();
    });
    beforeEach(() => r.g.openai.reset());

    test('two steps: model → tool → model, in order, with usage per call and totals', async () => {
      r.g.openai.once({ toolCalls: [httpCall(`${target.origin}/text?body=pong`, 'call_a')], usage: { input: 100, cached: 40, output: 20, reasoning: 7 } });
      r.g.openai.once({ text: 'The server said pong.', usage: { input: 150, cached: 60, output: 30, reasoning: 3 } });
      const res = await r.start(token, agentId, { inputText: 'ping the server' });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.status, 'completed');
      assert.equal(res.body.outputText, 'The server said pong.');
      assert.equal(target.requests.length, 1);
      assert.equal(target.requests[0]!.url, '/text?body=pong');

      // The second model call saw the tool call and its result.
      const second = r.g.openai.requests[1]!.body.messages as { role: string; content: string; tool_call_id?: string; tool_calls?: unknown[] }[];
      assert.deepEqual(second.map((m) => m.role), ['system', 'user', 'assistant', 'tool']);
      assert.equal(second[3]!.tool_call_id, 'call_a');
      assert.match(second[3]!.content, /pong/);
      assert.equal(r.g.openai.requests[0]!.body.tools[0].function.name, 'http_request');

      const read = await r.read(token, agentId, res.body.runId);
      assert.equal(read.status, 200);
      const steps = read.body.steps as any[];
      assert.deepEqual(steps.map((s) => [s.seq, s.kind, s.status]), [[1, 'model', 'completed'], [2, 'tool', 'completed'], [3, 'model', 'completed']]);
      assert.equal(steps[0].provider, 'openai-compatible'); // the provider (type) of account `fake`
      assert.equal(steps[0].model, 'fake/gpt-test');
      assert.equal(steps[0].output.tool_calls[0].id, 'call_a');
      assert.equal(steps[1].name, 'http_request');
      assert.equal(steps[1].callId, 'call_a');
      assert.match(steps[1].output, /pong/);
      assert.equal(steps[2].output.content, 'The server said pong.');
      // OpenAI semantics: prompt_tokens includes the cached ones.
      assert.deepEqual(steps[0].usage, { inputTokens: 140, cachedTokens: 40, outputTokens: 20, reasoningTokens: 7, totalTokens: 160 });
      assert.deepEqual(steps[1].usage, { inputTokens: 0, cachedTokens: 0, outputTokens: 0, reasoningTokens: 0, totalTokens: 0 });
      assert.deepEqual(steps[2].usage, { inputTokens: 210, cachedTokens: 60, outputTokens: 30, reasoningTokens: 3, totalTokens: 240 });
      for (const s of steps) assert.ok(s.startedAt && s.finishedAt);
      assert.deepEqual(read.body.usage, {
        provider: 'openai-compatible', model: 'fake/gpt-test',
        inputTokens: 350, cachedTokens: 100, outputTokens: 50, reasoningTokens: 10, totalTokens: 400, modelCalls: 2,
      });

      const events = read.body.events as { seq: number; kind: string; data: any }[];
      assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1));
      assert.deepEqual(events.map((e) => e.kind), [
        'run.created', 'run.started',
        'step.started', 'step.completed', // model 1
        'step.completed', // tool
        'step.started', 'step.completed', // model 2
        'run.completed',
      ]);
      assert.equal(events[3]!.data.toolCalls, 1);
      assert.equal(events[4]!.data.tool, 'http_request');

      const run = read.body.run;
      assert.equal(run.runId, res.body.runId);
      assert.equal(run.agentId, agentId);
      assert.equal(run.agentVersion, 1);
      assert.equal(run.inputText, 'ping the server');
      assert.ok(run.createdAt && run.startedAt && run.finishedAt);
    });

    test('a tool error is a result the model reads, not a failed run', async () => {
      r.g.openai.once({ toolCalls: [httpCall(`${target.origin}/status?code=503`)] });
      r.g.openai.once({ text: 'The server is down.' });
      const res = await r.start(token, agentId);
      assert.equal(res.body.status, 'completed', res.text);
      const tool = (await r.read(token, agentId, res.body.runId)).body.steps[1];
      assert.match(tool.output, /503/);
    });

    test("the list: the caller's 25 most recent of 27, newest first, with usage; others' runs not listed", async () => {
      const other = await r.agent(r.g.people.member);
      assert.equal((await r.app(r.g.people.member, 'POST', `/api/app/agents/${other}/shares`, { workspace: true })).status, 200);
      const ids: string[] = [];
      for (let i = 0; i < 27; i++) {
        r.g.fx.clock.advance(1_000);
        r.g.openai.once({ text: `answer ${i}`, usage: { input: i, output: 1 } });
        const res = await r.start(token, other, { inputText: `run ${i}` });
        assert.equal(res.status, 201);
        ids.push(res.body.runId);
      }
      const admin = await r.token(r.g.people.admin);
      const theirs = await r.start(admin, other, { inputText: 'not yours' });
      assert.equal(theirs.status, 201);

      const list = await r.list(token, other);
      assert.equal(list.status, 200);
      const data = list.body.data as any[];
      assert.equal(data.length, 25);
      assert.deepEqual(data.map((x) => x.runId), ids.slice(2).reverse());
      assert.ok(!data.some((x) => x.runId === theirs.body.runId));
      assert.equal(data[0].status, 'completed');
      assert.equal(data[0].inputText, 'run 26');
      assert.equal(data[0].outputText, 'answer 26');
      assert.deepEqual(data[0].usage, { inputTokens: 26, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0, totalTokens: 27, modelCalls: 1 });
      assert.deepEqual(data[24].usage, { inputTokens: 2, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0, totalTokens: 3, modelCalls: 1 });

      const adminList = (await r.list(admin, other)).body.data as any[];
      assert.deepEqual(adminList.map((x) => x.runId), [theirs.body.runId]);
    });
  });
}
