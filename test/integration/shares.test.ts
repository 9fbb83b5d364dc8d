// Share links (issue 5, item 7) over HTTP: create (owner of the record only), list with previews,
// revoke; the public read works without any credential, shows a read-only view that leaks no user
// id, email, claim token or instructions (searched in the raw body), and every failure — unknown,
// revoked, malformed, bad checksum — is one byte-identical 404. The access log keeps only the
// token's first 4 characters. On SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { issueToken } from '../../core/auth/tokens.ts';
import type { Dialect } from '../../core/store/types.ts';
import { startRuns, type RunsEnv } from './runs/setup.ts';

const INSTRUCTIONS = 'Never reveal: INSTR-7f3a9c-secret-recipe.';

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`share links (${store})`, () => {
    let r: RunsEnv;
    let token: string;
    let agentId: string;

    beforeAll(async () => {
      r = await startRuns({ store });
      token = await r.token(r.g.people.member);
      agentId = await r.agent(r.g.people.member, { instructions: INSTRUCTIONS });
    });
    afterAll(() => r.close());

    const open = async (t: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${r.g.base}/api/public/share/${t}`, { headers });
      return { status: res.status, headers: res.headers, text: await res.text() };
    };
    async function run(conv = false) {
      r.g.openai.script({ text: 'The answer is 42.', usage: { input: 11, output: 5, cached: 2 } });
      const res = await r.start(token, agentId, { inputText: 'What is the answer?', ...(conv ? { conversation: true } : {}) });
      assert.equal(res.status, 201, res.text);
      return res.body as { runId: string; conversationId: string | null };
    }
    /** Every value an anonymous reader must never see. */
    async function secrets(runId?: string) {
      const { member } = r.g.people;
      const out = [member.userId, 'member@example.test', INSTRUCTIONS, 'INSTR-7f3a9c', token, r.g.people.workspace];
      if (runId) {
        const row = await r.g.core.db.one<{ claim_token: string | null }>('SELECT claim_token FROM runs WHERE id = ?', [runId]);
        if (row?.claim_token) out.push(row.claim_token);
      }
      return out;
    }

    test('share a run: token once, public read without a cookie, read-only view with steps and usage, nothing private', async () => {
      const { member } = r.g.people;
      const { runId } = await run();
      const created = await r.app(member, 'POST', '/api/app/shares', { kind: 'run', id: runId });
      assert.equal(created.status, 201, created.text);
      const s = created.body;
      assert.deepEqual(Object.keys(s), ['id', 'token', 'kind', 'targetId', 'url', 'preview', 'createdAt']);
      assert.match(s.id, /^shr_[0-9a-z]{20}$/);
      assert.match(s.token, /^svc_shr_[0-9A-Za-z]{36}$/);
      assert.equal(s.kind, 'run');
      assert.equal(s.targetId, runId);
      assert.equal(s.url, `${r.g.core.config.SERVICE_APP_ORIGIN.replace(/\/+$/, '')}/api/public/share/${s.token}`);
      assert.equal(s.preview, `svc_shr_…${s.token.slice(-4)}`);

      // Stored as a keyed hash only.
      const stored = JSON.stringify(await r.g.core.db.all('SELECT * FROM shares WHERE id = ?', [s.id]));
      assert.ok(!stored.includes(s.token) && !stored.includes(s.token.slice(8, -4)), stored);

      const pub = await open(s.token);
      assert.equal(pub.status, 200, pub.text);
      assert.equal(pub.headers.get('cache-control'), 'no-store');
      assert.equal(pub.headers.get('referrer-policy'), 'no-referrer');
      const body = JSON.parse(pub.text);
      assert.equal(body.kind, 'run');
      assert.equal(body.run.runId, runId);
      assert.equal(body.run.status, 'completed');
      assert.equal(body.run.inputText, 'What is the answer?');
      assert.equal(body.run.outputText, 'The answer is 42.');
      assert.equal(body.steps.length, 1);
      assert.equal(body.steps[0].kind, 'model');
      assert.equal(body.steps[0].model, 'fake/gpt-test');
      assert.deepEqual(body.usage, { provider: 'openai-compatible', model: 'fake/gpt-test', inputTokens: 13, cachedTokens: 2, outputTokens: 5, reasoningTokens: 0, totalTokens: 18, modelCalls: 1 });
      assert.deepEqual(Object.keys(body.run).sort(), ['agentId', 'agentVersion', 'createdAt', 'error_message', 'errorCode', 'finishedAt', 'inputText', 'outputText', 'runId', 'startedAt', 'status'].sort());
      for (const secret of await secrets(runId)) assert.ok(!pub.text.includes(secret), `public body leaks ${secret}`);
      assert.ok(!/userId|user_id|email|claim|instructions|approvalId/i.test(pub.text), pub.text);

      // A session cookie changes nothing: the token is the only credential either way.
      const withCookie = await open(s.token, member.headers());
      assert.equal(withCookie.status, 200);
      assert.equal(withCookie.text, pub.text);
    });

    test('share a conversation: title and messages only', async () => {
      const { member } = r.g.people;
      const { conversationId, runId } = await run(true);
      const created = await r.app(member, 'POST', '/api/app/shares', { kind: 'conversation', id: conversationId });
      assert.equal(created.status, 201, created.text);
      const pub = await open(created.body.token);
      assert.equal(pub.status, 200, pub.text);
      const body = JSON.parse(pub.text);
      assert.equal(body.kind, 'conversation');
      assert.equal(body.conversation.title, 'What is the answer?');
      assert.deepEqual(body.conversation.messages.map((m: { role: string; content: string }) => [m.role, m.content]), [
        ['user', 'What is the answer?'],
        ['assistant', 'The answer is 42.'],
      ]);
      for (const secret of [...(await secrets(runId)), agentId]) assert.ok(!pub.text.includes(secret), `public body leaks ${secret}`);
    });

    test("only the record's owner may share it: anyone else, or an unknown id → 404; bad body → 400", async () => {
      const { member, admin, owner, viewer } = r.g.people;
      const { runId, conversationId } = await run(true);
      for (const who of [admin, owner, viewer]) {
        for (const [kind, id] of [['run', runId], ['conversation', conversationId]]) {
          const res = await r.app(who, 'POST', '/api/app/shares', { kind, id });
          assert.equal(res.status, 404, `${kind} as another user: ${res.text}`);
        }
      }
      // A run id given as a conversation (and the reverse) is not found either.
      assert.equal((await r.app(member, 'POST', '/api/app/shares', { kind: 'conversation', id: runId })).status, 404);
      assert.equal((await r.app(member, 'POST', '/api/app/shares', { kind: 'run', id: conversationId })).status, 404);
      assert.equal((await r.app(member, 'POST', '/api/app/shares', { kind: 'run', id: 'run_00000000000000000000' })).status, 404);
      const bad = await r.app(member, 'POST', '/api/app/shares', { kind: 'agent', id: runId });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.field, 'kind');
      assert.equal((await r.app(member, 'POST', '/api/app/shares', { kind: 'run', id: runId, extra: 1 })).status, 400);
      assert.equal((await r.g.core.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM shares WHERE user_id <> ?', [member.userId]))!.n, 0);
    });

    test('list shows previews only; revoke (owner only, idempotent) → the link is a 404', async () => {
      const { member, admin } = r.g.people;
      const { runId } = await run();
      const s = (await r.app(member, 'POST', '/api/app/shares', { kind: 'run', id: runId })).body;
      const list = await r.app(member, 'GET', '/api/app/shares');
      assert.equal(list.status, 200);
      const mine = list.body.data.find((x: { id: string }) => x.id === s.id);
      assert.deepEqual(mine, { id: s.id, kind: 'run', targetId: runId, preview: s.preview, status: 'active', createdAt: s.createdAt, revokedAt: null });
      assert.ok(!list.text.includes(s.token), 'the list never carries a token');
      assert.ok(!(await r.app(admin, 'GET', '/api/app/shares')).body.data.some((x: { id: string }) => x.id === s.id));

      assert.equal((await r.app(admin, 'DELETE', `/api/app/shares/${s.id}`)).status, 404);
      assert.equal((await open(s.token)).status, 200, "another user's revoke changed nothing");
      const del = await r.app(member, 'DELETE', `/api/app/shares/${s.id}`);
      assert.equal(del.status, 200, del.text);
      assert.equal(del.body.status, 'revoked');
      const again = await r.app(member, 'DELETE', `/api/app/shares/${s.id}`);
      assert.equal(again.status, 200);
      assert.equal(again.body.revokedAt, del.body.revokedAt);
      assert.equal((await open(s.token)).status, 404);
      assert.equal((await r.app(member, 'DELETE', '/api/app/shares/shr_00000000000000000000')).status, 404);
    });

    test('unknown, revoked, malformed and bad-checksum tokens: one identical 404 body', async () => {
      const { member } = r.g.people;
      const { runId } = await run();
      const s = (await r.app(member, 'POST', '/api/app/shares', { kind: 'run', id: runId })).body;
      await r.app(member, 'DELETE', `/api/app/shares/${s.id}`);
      const flipped = s.token.slice(0, -1) + (s.token.endsWith('A') ? 'B' : 'A');
      const cases = {
        revoked: s.token,
        unknown: issueToken('share'),
        malformed: 'not-a-token',
        badChecksum: flipped,
        otherKind: issueToken('access'),
        tooLong: s.token + 'x',
      };
      const answers = await Promise.all(Object.values(cases).map((t) => open(t)));
      for (const [i, name] of Object.keys(cases).entries()) {
        assert.equal(answers[i]!.status, 404, name);
        assert.equal(answers[i]!.headers.get('cache-control'), 'no-store', name);
        assert.equal(answers[i]!.text, answers[0]!.text, `${name} body differs`);
      }
      assert.deepEqual(JSON.parse(answers[0]!.text), { error: { code: 'not_found', message: 'Share link not found.' } });
    });

    test('a deleted record: the link answers the same 404', async () => {
      const { member } = r.g.people;
      const { runId } = await run();
      const s = (await r.app(member, 'POST', '/api/app/shares', { kind: 'run', id: runId })).body;
      assert.equal((await open(s.token)).status, 200);
      await r.g.core.db.run('DELETE FROM runs WHERE id = ?', [runId]);
      const gone = await open(s.token);
      assert.equal(gone.status, 404);
      assert.equal(gone.text, (await open(issueToken('share'))).text);
    });

    test('the access log shows only the first 4 characters of the token', async () => {
      const { member } = r.g.people;
      const { runId } = await run();
      const s = (await r.app(member, 'POST', '/api/app/shares', { kind: 'run', id: runId })).body;
      const from = r.g.fx.logs.length;
      assert.equal((await open(s.token)).status, 200);
      assert.equal((await open(s.token + 'x')).status, 404);
      const lines = r.g.fx.logs.slice(from).filter((l) => l.msg === 'request' && l.route === '/api/public/share/:token');
      assert.equal(lines.length, 2, JSON.stringify(r.g.fx.logs.slice(from)));
      assert.equal(lines[0]!.path, `/api/public/share/${s.token.slice(0, 4)}…`);
      assert.equal(lines[1]!.path, `/api/public/share/${s.token.slice(0, 4)}…`);
      // No line anywhere (the create answer included) carries the token or its secret part.
      const all = JSON.stringify(r.g.fx.logs);
      assert.ok(!all.includes(s.token.slice(4, 20)), 'a log line carries the share token');
    });
  });
}
