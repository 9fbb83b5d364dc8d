// SPEC "States and transitions", one test per row, through HTTP against a running server: the
// in-request start ending in each terminal status (201 every time, a failed run included), the
// queued start (not yet available: issue 6), and each `running →` transition as the read shows it.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/http-target.ts';
import { httpCall, MINUTE, startRuns, until, type RunsEnv } from './setup.ts';

describe('run transitions (SQLite)', () => {
  let r: RunsEnv;
  let target: TestServer;
  let token: string;
  let plain: string;
  let gated: string;

  beforeAll(async () => {
    r = await startRuns();
    target = await startTestServer();
    token = await r.token(r.g.people.member);
    plain = await r.agent(r.g.people.member);
    gated = await r.agent(r.g.people.member, { tools: [{ type: 'http_request', approval: 'always' }] });
  });
  afterAll(async () => {
    await target.close();
    await r.close();
  });
  beforeEach(() => r.g.openai.reset());

  const kinds = (read: { body: { events: { kind: string }[] } }) => read.body.events.map((e) => e.kind);

  test('(start) in request → completed: 201 with runId, conversationId, status, outputText', async () => {
    r.g.openai.script({ text: 'All done.' });
    const res = await r.start(token, plain, { inputText: 'do it' });
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.runId, /^run_[0-9a-z]{20}$/);
    assert.equal(res.body.status, 'completed');
    assert.equal(res.body.outputText, 'All done.');
    assert.ok('conversationId' in res.body);
    assert.equal(res.body.approvalId, undefined);
    assert.equal(res.body.error, undefined);
    const read = await r.read(token, plain, res.body.runId);
    assert.equal(read.status, 200);
    assert.equal(read.body.run.status, 'completed');
    assert.equal(read.body.run.outputText, 'All done.');
    assert.equal(read.body.run.error_message, null);
    assert.deepEqual(kinds(read), ['run.created', 'run.started', 'step.started', 'step.completed', 'run.completed']);
  });

  test('`input` is accepted as the name of the text', async () => {
    const res = await r.start(token, plain, { input: 'via input' });
    assert.equal(res.status, 201, res.text);
    assert.equal(r.g.openai.requests[0]!.body.messages.at(-1).content, 'via input');
  });

  test('(start) in request → failed: still 201, status failed, error; read has error_message (running → failed)', async () => {
    r.g.openai.script({ fault: '5xx' });
    const res = await r.start(token, plain);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, 'failed');
    assert.equal(typeof res.body.error, 'string');
    assert.match(res.body.error, /model call failed/i);
    assert.equal(res.body.outputText, undefined);
    assert.equal(r.g.openai.calls, 1, 'a 5xx may have done work: never retried');
    const read = await r.read(token, plain, res.body.runId);
    assert.equal(read.body.run.status, 'failed');
    assert.equal(read.body.run.error_message, res.body.error);
    assert.equal(read.body.run.errorCode, 'model_call_failed');
    assert.equal(read.body.steps[0].status, 'failed');
    assert.deepEqual(kinds(read).slice(-2), ['step.failed', 'run.failed']);
  });

  test('(start) in request → waiting_input with approvalId (running → waiting_input); reject → cancelled', async () => {
    r.g.openai.once({ toolCalls: [httpCall(`${target.origin}/text?body=x`)] });
    const res = await r.start(token, gated);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, 'waiting_input');
    assert.match(res.body.approvalId, /^apr_[0-9a-z]{20}$/);
    const read = await r.read(token, gated, res.body.runId);
    assert.equal(read.body.run.status, 'waiting_input');
    assert.equal(read.body.run.approvalId, res.body.approvalId);
    assert.deepEqual(kinds(read).slice(-2), ['approval.requested', 'run.waiting_input']);

    const rej = await r.decide(token, gated, res.body.runId, res.body.approvalId, 'reject');
    assert.equal(rej.status, 200, rej.text);
    assert.equal(rej.body.status, 'cancelled');
    const after = await r.read(token, gated, res.body.runId);
    assert.equal(after.body.run.status, 'cancelled');
    assert.equal(after.body.run.errorCode, 'approval_rejected');
    assert.equal(after.body.steps[1].status, 'rejected');
    assert.equal(target.requests.length, 0, 'a rejected tool call never runs');
    assert.equal(r.g.openai.calls, 1, 'a cancelled run calls the model no more');
  });

  test('(start) in request → timed_out: running past 15 minutes (clock moved while the model hangs)', async () => {
    r.g.openai.script({ fault: 'hang' });
    const pending = r.start(token, plain);
    await until(() => r.g.openai.calls === 1, 'the model call');
    r.g.fx.clock.advance(15 * MINUTE - 1_000);
    await new Promise((res) => setTimeout(res, 50));
    assert.equal(await Promise.race([pending.then(() => 'answered'), new Promise((res) => setTimeout(() => res('waiting'), 50))]), 'waiting', 'still running at 14:59');
    r.g.fx.clock.advance(2_000);
    const res = await pending;
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, 'timed_out');
    assert.match(res.body.error, /15-minute/);
    const read = await r.read(token, plain, res.body.runId);
    assert.equal(read.body.run.status, 'timed_out');
    assert.equal(read.body.run.errorCode, 'execution_time_limit');
    assert.equal(kinds(read).at(-1), 'run.timed_out');
    await r.g.openai.requests[0]!.closed; // the hanging upstream call was aborted, not left open
    assert.equal(r.g.openai.requests[0]!.clientClosed, true);
  });

  test('running → timed_out also between steps: a slow tool step past the limit ends the run', async () => {
    // The first model step asks for a tool; the tool call hangs (the /slow target answers after 5 s).
    r.g.openai.once({ toolCalls: [httpCall(`${target.origin}/slow`)] });
    const a = await r.agent(r.g.people.member, { tools: [{ type: 'http_request' }] });
    const pending = r.start(token, a);
    await until(() => target.requests.some((q) => q.url === '/slow'), 'the tool call');
    r.g.fx.clock.advance(15 * MINUTE + 1_000);
    const res = await pending;
    assert.equal(res.body.status, 'timed_out', res.text);
    assert.equal(r.g.openai.calls, 1, 'no model call after the limit');
  });

  test('(start) async: true / Prefer: respond-async → 202 with runId, conversationId, status queued', async () => {
    // The queue itself (claims, leases, the 5-second fallback) is issue 6's and has its own tests.
    for (const [body, headers] of [
      [{ inputText: 'later', async: true, conversation: true }, {}],
      [{ inputText: 'later' }, { prefer: 'respond-async' }],
    ] as const) {
      const res = await r.start(token, plain, body, headers);
      assert.equal(res.status, 202, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ['conversationId', 'runId', 'status']);
      assert.equal(res.body.status, 'queued');
      assert.match(res.body.runId, /^run_[0-9a-z]{20}$/);
      assert.equal(res.body.conversationId === null, !('conversation' in body));
      assert.equal((await r.read(token, plain, res.body.runId)).status, 200);
    }
  });

  test('the start body is validated: missing text, two different texts, unknown fields → 400', async () => {
    for (const body of [{}, { inputText: 'a', input: 'b' }, { inputText: 'a', stream: true }, { inputText: 5 }, { inputText: 'a', conversation: true, conversationId: 'conv_x' }]) {
      const res = await r.start(token, plain, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)} → ${res.text}`);
    }
    assert.equal(r.g.openai.calls, 0);
  });

  test('running → failed when the step budget is spent (max_steps_exceeded)', async () => {
    const a = await r.agent(r.g.people.member, { tools: [{ type: 'http_request' }], settings: { maxSteps: 3 } });
    r.g.openai.script({ toolCalls: [httpCall(`${target.origin}/text?body=again`)] });
    const res = await r.start(token, a);
    assert.equal(res.status, 201);
    assert.equal(res.body.status, 'failed');
    assert.equal(res.body.errorCode, 'max_steps_exceeded');
    const read = await r.read(token, a, res.body.runId);
    assert.equal(read.body.steps.length, 3, 'model, tool, model: the second tool call is over budget and never runs');
    assert.equal(target.requests.filter((q) => q.url === '/text?body=again').length, 1);
  });
});
