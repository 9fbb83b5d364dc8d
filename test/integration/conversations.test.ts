// Conversations (issue 5, item 5) over HTTP: the run API records them, /api/app/conversations lists
// and reads the caller's own — newest activity first, messages in order — and another user's
// conversation is invisible (404, absent from their list). On SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Dialect } from '../../core/store/types.ts';
import { startRuns, type RunsEnv } from './runs/setup.ts';

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`conversations (${store})`, () => {
    let r: RunsEnv;
    let token: string;
    let agentId: string;

    beforeAll(async () => {
      r = await startRuns({ store });
      token = await r.token(r.g.people.member);
      agentId = await r.agent(r.g.people.member);
    });
    afterAll(() => r.close());

    /** Starts a run (completed, answering `answer`) and returns its start body. */
    async function say(text: string, answer: string, conv: { conversation?: true; conversationId?: string }) {
      r.g.openai.script({ text: answer });
      r.g.fx.clock.advance(1000); // distinct updated_at per exchange
      const res = await r.start(token, agentId, { inputText: text, ...conv });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.status, 'completed', res.text);
      return res.body as { runId: string; conversationId: string };
    }

    test('list and read: own conversations, newest activity first, messages in order with their run', async () => {
      const { member } = r.g.people;
      const a1 = await say('first question', 'first answer', { conversation: true });
      const b1 = await say('other topic', 'other answer', { conversation: true });
      const a2 = await say('follow up', 'second answer', { conversationId: a1.conversationId });
      assert.equal(a2.conversationId, a1.conversationId);
      assert.notEqual(b1.conversationId, a1.conversationId);
      assert.match(a1.conversationId, /^conv_[0-9a-z]{20}$/);

      const list = await r.app(member, 'GET', '/api/app/conversations');
      assert.equal(list.status, 200, list.text);
      const data = list.body.data as Array<Record<string, unknown>>;
      // a1 was continued last, so it leads.
      assert.deepEqual(data.map((c) => c.id), [a1.conversationId, b1.conversationId]);
      assert.deepEqual(Object.keys(data[0]!).sort(), ['agentId', 'createdAt', 'id', 'messageCount', 'title', 'updatedAt']);
      assert.equal(data[0]!.agentId, agentId);
      assert.equal(data[0]!.title, 'first question');
      assert.equal(data[0]!.messageCount, 4);
      assert.equal(data[1]!.messageCount, 2);
      assert.ok((data[0]!.updatedAt as string) > (data[0]!.createdAt as string));

      const one = await r.app(member, 'GET', `/api/app/conversations/${a1.conversationId}`);
      assert.equal(one.status, 200, one.text);
      assert.equal(one.body.id, a1.conversationId);
      assert.equal(one.body.agentId, agentId);
      assert.equal(one.body.title, 'first question');
      assert.deepEqual(
        one.body.messages.map((m: Record<string, unknown>) => [m.seq, m.role, m.content, m.runId]),
        [
          [1, 'user', 'first question', a1.runId],
          [2, 'assistant', 'first answer', a1.runId],
          [3, 'user', 'follow up', a2.runId],
          [4, 'assistant', 'second answer', a2.runId],
        ],
      );
      for (const m of one.body.messages) assert.match(m.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      // The model saw the history on the follow-up (the conversation is what it claims to be).
      const sent = r.g.openai.requests.at(-1)!.body.messages.map((m: { content: string }) => m.content);
      assert.ok(sent.includes('first question') && sent.includes('first answer'), JSON.stringify(sent));
    });

    test("another user's conversation: 404 to read, absent from their list; unknown id 404", async () => {
      const { member, admin, owner, viewer } = r.g.people;
      const mine = await say('private', 'ok', { conversation: true });
      for (const who of [admin, owner, viewer]) {
        const res = await r.app(who, 'GET', `/api/app/conversations/${mine.conversationId}`);
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.error.code, 'not_found');
        const list = await r.app(who, 'GET', '/api/app/conversations');
        assert.equal(list.status, 200);
        assert.ok(!list.body.data.some((c: { id: string }) => c.id === mine.conversationId));
      }
      assert.equal((await r.app(member, 'GET', '/api/app/conversations/conv_00000000000000000000')).status, 404);
      assert.equal((await r.app(member, 'GET', `/api/app/conversations/${mine.conversationId}`)).status, 200);
    });

    test("a run without a conversation records none; the list follows the active workspace", async () => {
      const { member } = r.g.people;
      const before = (await r.app(member, 'GET', '/api/app/conversations')).body.data.length;
      r.g.openai.script({ text: 'x' });
      const res = await r.start(token, agentId, { inputText: 'no conversation' });
      assert.equal(res.body.conversationId, null);
      assert.equal((await r.app(member, 'GET', '/api/app/conversations')).body.data.length, before);
      // The agent lives in the operator workspace: the member's own workspace lists none of it,
      // but the conversation itself stays readable by id there (it is the caller's own).
      const own = await r.app(member, 'GET', '/api/app/conversations', undefined, member.ownWorkspace);
      assert.equal(own.status, 200);
      assert.deepEqual(own.body.data, []);
      const any = (await r.app(member, 'GET', '/api/app/conversations')).body.data[0].id;
      assert.equal((await r.app(member, 'GET', `/api/app/conversations/${any}`, undefined, member.ownWorkspace)).status, 200);
    });

    test('without a session: 401', async () => {
      const res = await fetch(`${r.g.base}/api/app/conversations`);
      assert.equal(res.status, 401);
      const bearer = await fetch(`${r.g.base}/api/app/conversations`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(bearer.status, 401, 'an access token is not a session');
    });
  });
}
