// Conversations through the run API: `conversation: true` creates one and records the exchange;
// `conversationId` continues it and the model sees the history (checked in the requests the fake
// recorded). The record is checked in the store here; /api/app/conversations has its own tests.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import { startRuns, type RunsEnv } from './setup.ts';

describe('conversations (SQLite)', () => {
  let r: RunsEnv;
  let token: string;
  let agentId: string;

  beforeAll(async () => {
    r = await startRuns();
    token = await r.token(r.g.people.member);
    agentId = await r.agent(r.g.people.member, { instructions: 'You are terse.' });
  });
  afterAll(() => r.close());
  beforeEach(() => r.g.openai.reset());

  const messages = (conversationId: string) =>
    r.g.core.db.all<{ seq: number; role: string; content: string; run_id: string }>('SELECT seq, role, content, run_id FROM conversation_messages WHERE conversation_id = ? ORDER BY seq', [conversationId]);

  test('conversation: true creates one and records the exchange; conversationId continues it with history', async () => {
    r.g.openai.once({ text: 'Paris.' });
    const first = await r.start(token, agentId, { inputText: 'Capital of France?', conversation: true });
    assert.equal(first.status, 201, first.text);
    assert.match(first.body.conversationId, /^conv_[0-9a-z]{20}$/);
    const conv = await r.g.core.db.one<{ user_id: string; agent_id: string; title: string }>('SELECT user_id, agent_id, title FROM conversations WHERE id = ?', [first.body.conversationId]);
    assert.equal(conv!.user_id, r.g.people.member.userId);
    assert.equal(conv!.agent_id, agentId);
    assert.equal(conv!.title, 'Capital of France?');
    assert.deepEqual((await messages(first.body.conversationId)).map((m) => [m.seq, m.role, m.content, m.run_id]), [
      [1, 'user', 'Capital of France?', first.body.runId],
      [2, 'assistant', 'Paris.', first.body.runId],
    ]);
    // The first call had no history.
    assert.deepEqual(r.g.openai.requests[0]!.body.messages, [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Capital of France?' },
    ]);

    r.g.openai.once({ text: 'About 2.1 million.' });
    const second = await r.start(token, agentId, { inputText: 'Its population?', conversationId: first.body.conversationId });
    assert.equal(second.status, 201, second.text);
    assert.equal(second.body.conversationId, first.body.conversationId);
    assert.deepEqual(r.g.openai.requests[1]!.body.messages, [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Capital of France?' },
      { role: 'assistant', content: 'Paris.' },
      { role: 'user', content: 'Its population?' },
    ]);
    assert.deepEqual((await messages(first.body.conversationId)).map((m) => [m.role, m.content]), [
      ['user', 'Capital of France?'], ['assistant', 'Paris.'], ['user', 'Its population?'], ['assistant', 'About 2.1 million.'],
    ]);
    assert.equal((await r.read(token, agentId, second.body.runId)).body.run.conversationId, first.body.conversationId);
  });

  test('without conversation fields there is none (conversationId null), and nothing is recorded', async () => {
    const res = await r.start(token, agentId, { inputText: 'one-off' });
    assert.equal(res.status, 201);
    assert.equal(res.body.conversationId, null);
    const n = await r.g.core.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM conversation_messages WHERE run_id = ?', [res.body.runId]);
    assert.equal(Number(n!.n), 0);
  });

  test('a failed run keeps the question but records no answer; the next run sees no phantom reply', async () => {
    r.g.openai.once({ fault: '5xx' });
    const failed = await r.start(token, agentId, { inputText: 'Will this fail?', conversation: true });
    assert.equal(failed.body.status, 'failed');
    assert.deepEqual((await messages(failed.body.conversationId)).map((m) => m.role), ['user']);
    r.g.openai.once({ text: 'Retried fine.' });
    const next = await r.start(token, agentId, { inputText: 'Again?', conversationId: failed.body.conversationId });
    assert.equal(next.body.status, 'completed');
    const sent = r.g.openai.requests[1]!.body.messages as { role: string; content: string }[];
    assert.deepEqual(sent.map((m) => m.role), ['system', 'user', 'user']);
    assert.equal(sent[1]!.content, 'Will this fail?');
  });

  test("another user's conversationId → 404 and nothing is appended to it", async () => {
    const mine = await r.start(token, agentId, { inputText: 'mine', conversation: true });
    assert.equal((await r.app(r.g.people.member, 'POST', `/api/app/agents/${agentId}/shares`, { workspace: true })).status, 200);
    const admin = await r.token(r.g.people.admin);
    const res = await r.start(admin, agentId, { inputText: 'intrude', conversationId: mine.body.conversationId });
    assert.equal(res.status, 404, res.text);
    assert.equal((await messages(mine.body.conversationId)).length, 2);
    const unknown = await r.start(token, agentId, { inputText: 'x', conversationId: 'conv_00000000000000000000' });
    assert.equal(unknown.status, 404);
  });
});
