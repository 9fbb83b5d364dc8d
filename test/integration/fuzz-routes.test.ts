// Bad input over every route the app registers (issue 12, "0 × 5xx"): malformed JSON, wrong types,
// NUL bytes, huge numbers, deep nesting, odd unicode, bad percent-encoding in paths and queries,
// prototype keys and odd workspace headers, sent over real HTTP as the owner (session + CSRF; the
// member key on /api/v1, an access token on /api/agents) on both stores. The route list is read from
// the mounted app, so a route added later is fuzzed too; a route with a sample body below also gets
// every leaf of that body replaced by each bad value, so the requests reach past the first check.
// The only assertion: no answer is a 5xx.
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { createSession } from '../../core/accounts/sessions.ts';
import { createApp } from '../../daemon/app.ts';
import { accountsDeps } from '../../core/services.ts';
import { startRuns, type RunsEnv } from './runs/setup.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

// Too deep for JSON.stringify to write: a marker value stands for it and is swapped for the text.
const DEEP = 'deep-nesting-marker';
const DEEP_TEXT = '[{"a":'.repeat(3000) + '1' + '}]'.repeat(3000);
const body = (v: Json) => JSON.stringify(v).replaceAll(`"${DEEP}"`, DEEP_TEXT);

/** Every leaf of a sample body is replaced by a NUL string and by deep nesting, then by two of the
 * other values in turn (each is used across a route's leaves; all of them would be 3× the requests). */
const ALWAYS: Json[] = ['a\u0000b', DEEP];
const BAD_VALUES: Json[] = [1e308, -1, 2 ** 53 + 1, 0.5, true, null, [], {}, 'x'.repeat(70_000), '\ud800', '\u202e\u200b\ufeff', { __proto__: 1 }];
const valuesFor = (i: number) => [...ALWAYS, BAD_VALUES[(2 * i) % BAD_VALUES.length]!, BAD_VALUES[(2 * i + 1) % BAD_VALUES.length]!];

/** Whole bodies, as text (some are not JSON at all). */
const RAW_BODIES: string[] = [
  '', '{', 'null', '[]', '"x"', '1e999', '{"a":1}{', '\u0000', '{"\\u0000":1}',
  '{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}}}', '['.repeat(6000) + ']'.repeat(6000), '\ufeff{"a":1e400}',
];

/** Replacements for each path parameter (percent-encoded as sent on the wire). */
const BAD_SEGMENTS = ['%00', 'x%00y', '%ZZ', '%E0%A4%A', '%ED%A0%80', '__proto__', 'x'.repeat(5000), '%F0%9F%92%A9'];
const BAD_QUERIES = ['all=%00&from=x%00y', 'from=%ZZ&to=99999-99-99&scope=__proto__&x=' + 'y'.repeat(8000), 'to=1e309&from=-1&scope=%E0%A4%A&invite=%ED%A0%80'];
const BAD_WORKSPACES = ['ws_x', '__proto__', 'x'.repeat(3000), '\xff\xfe', "ws_' OR 1=1 --"];

interface Reply {
  status: number;
  text: string;
}

for (const store of ['sqlite', 'postgres'] as const) {
  describe(`fuzz: bad input on every route (${store})`, () => {
    let e: RunsEnv;
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    let port: number;
    const ids: Record<string, string> = {};
    const id = (k: string) => ids[k]!;
    let samples: Record<string, Json>;
    let pat: string;

    beforeAll(async () => {
      e = await startRuns({ store });
      port = Number(new URL(e.g.base).port);
      const owner = e.g.people.owner;
      pat = await e.token(owner);
      ids.agent = await e.agent(owner);
      await e.app(owner, 'POST', `/api/app/agents/${ids.agent}/shares`, { workspace: true });
      const ok = <R extends { status: number; text: string }>(r: R, want: number): R => {
        assert.equal(r.status, want, r.text);
        return r;
      };
      const run = ok(await e.start(pat, ids.agent, { inputText: 'hi', conversation: true }), 201).body;
      ids.run = run.runId;
      ids.conversation = run.conversationId;
      const worker = ok(await e.app(owner, 'POST', '/api/app/workers', { name: 'fz', agentId: ids.agent, inputTemplate: 'x {{json.a}} {{json.a.a.a}}' }), 201).body;
      ids.worker = worker.id;
      ids.webhookRef = worker.token;
      ids.agentToken = ok(await e.app(owner, 'POST', `/api/app/agents/${ids.agent}/webhook-token`), 201).body.token;
      const inv = ok(await e.app(owner, 'POST', '/api/app/invitations', { email: 'fz@example.test', role: 'member' }), 201).body;
      ids.invitation = inv.id;
      const share = ok(await e.app(owner, 'POST', '/api/app/shares', { kind: 'conversation', id: ids.conversation }), 201).body;
      ids.share = share.id;
      ids.shareToken = share.token;
      ids.accessToken = ok(await e.app(owner, 'POST', '/api/app/access-tokens', { name: 'fz' }), 201).body.id;
      ids.key = ok(await e.app(owner, 'POST', '/api/app/keys', { name: 'fz' }), 201).body.id;
      ids.adminToken = ok(await e.app(owner, 'POST', '/api/app/admin-tokens', { name: 'fz', scopes: ['usage:read'] }), 201).body.id;
      ids.account = e.fakeAccount;
      const chat = { model: 'fake/gpt-test', messages: [{ role: 'user', content: 'hi' }], temperature: 0.5, max_tokens: 5 };
      const limits = { requestsPerMinute: 100_000, tokensPerMinute: null, tokensPerMonth: null };
      samples = {
        'POST /api/auth/register': { email: 'new@example.test', password: 'correct horse battery', name: 'N', invitationToken: 'svc_inv_x' },
        'POST /api/auth/login': { email: 'owner@example.test', password: 'correct horse battery' },
        'PATCH /api/app/members/:userId': { role: 'member' },
        'POST /api/app/invitations': { email: 'fz2@example.test', role: 'member' },
        'POST /api/app/access-tokens': { name: 'fz', expiresInDays: 30 },
        'POST /api/app/keys': { name: 'fz', limits: { requestsPerMinute: 10, tokensPerMinute: 100, tokensPerMonth: 1000 } },
        'POST /api/app/admin-tokens': { name: 'fz', scopes: ['usage:read'] },
        'POST /api/app/provider-accounts': { provider: 'openai-compatible', name: 'fz', slug: 'fzp', baseUrl: e.g.openai.url, apiKey: 'sk-x', models: ['m'] },
        'PATCH /api/app/provider-accounts/:id': { name: 'renamed', models: ['gpt-test'] },
        'PUT /api/app/limits': limits,
        'PUT /api/app/limits/members/:userId': limits,
        'PUT /api/app/conduit': { families: { code: ['fake/*'] } },
        'POST /api/app/agents': { name: 'fz', instructions: 'x', providerAccountId: e.fakeAccount, model: 'fake/gpt-test', tools: [{ type: 'http_request', approval: 'never' }], settings: { temperature: 0.2, maxSteps: 3 } },
        'PATCH /api/app/agents/:id': { name: 'renamed', instructions: 'y' },
        'POST /api/app/agents/:id/shares': { userId: e.g.people.member.userId },
        'DELETE /api/app/agents/:id/shares': { userId: e.g.people.member.userId },
        'POST /api/app/shares': { kind: 'conversation', id: id('conversation') },
        'POST /api/app/workers': { name: 'fz', agentId: id('agent'), inputTemplate: '{{body}}', schedule: '*/5 * * * *', enabled: true },
        'PATCH /api/app/workers/:id': { name: 'renamed', inputTemplate: '{{json.a}}' },
        'POST /api/public/webhooks/invitation-email': { invitationId: id('invitation'), status: 'delivered', detail: 'ok' },
        'POST /api/public/webhooks/workers/:webhookRef': { a: { a: { a: 'deep' } } },
        'POST /api/public/webhooks/agents/:token': { a: 'x' },
        'POST /api/v1/chat/completions': chat,
        'POST /api/v1/router': chat,
        'POST /api/v1/responses': { model: 'fake/gpt-test', input: 'hi', instructions: 'x', temperature: 1 },
        'POST /api/v1/embeddings': { model: 'fake/text-embed', input: ['hi', 'there'] },
        'POST /api/agents/:agentId/runs': { inputText: 'hi', conversation: true },
        'POST /api/agents/:agentId/runs/:runId/approvals/:approvalId': { decision: 'approve' },
      };
    });
    afterAll(async () => {
      agent.destroy();
      await e.close();
    });

    /** A real id for each path parameter, by route. */
    function goodParam(route: string, name: string): string {
      if (name === 'userId') return e.g.people.member.userId;
      if (name === 'workspaceId') return e.g.people.workspace;
      if (name === 'version') return '1';
      if (name === 'webhookRef') return ids.webhookRef!;
      if (name === 'agentId') return ids.agent!;
      if (name === 'runId') return ids.run!;
      if (name === 'approvalId') return 'apr_missing';
      if (name === 'token') return route.includes('/share/') ? ids.shareToken! : ids.agentToken!;
      if (name === '*') return 'fake/gpt-test';
      const byResource: [string, string][] = [
        ['/agents/', 'agent'], ['/invitations/', 'invitation'], ['/access-tokens/', 'accessToken'], ['/keys/', 'key'],
        ['/admin-tokens/', 'adminToken'], ['/provider-accounts/', 'account'], ['/conversations/', 'conversation'],
        ['/shares/', 'share'], ['/workers/', 'worker'],
      ];
      for (const [part, key] of byResource) if (route.includes(part)) return ids[key]!;
      return 'x';
    }

    const paramsOf = (route: string) => [...route.matchAll(/:([A-Za-z]+)|\*/g)].map((m) => m[1] ?? '*');
    const fill = (route: string, values: Record<string, string>) => route.replace(/:([A-Za-z]+)|\*/g, (m, name: string | undefined) => values[name ?? '*'] ?? m);

    function headersFor(path: string, over: Record<string, string> = {}): Record<string, string> {
      if (path.startsWith('/api/v1/')) return { authorization: `Bearer ${e.g.memberKey}`, ...over };
      if (path.startsWith('/api/agents/')) return { authorization: `Bearer ${pat}`, ...over };
      if (path.startsWith('/api/public/webhooks/invitation-email')) return { 'x-svc-webhook-secret': e.g.core.secrets.SERVICE_INVITATION_EMAIL_SECRET, ...over };
      return { ...e.g.people.owner.headers({ workspace: e.g.people.workspace }), ...over };
    }

    function send(method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<Reply> {
      return new Promise((resolve, reject) => {
        const h: Record<string, string | number> = { ...headers };
        if (body !== undefined) h['content-length'] = Buffer.byteLength(body);
        const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: h, agent }, (res) => {
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8').slice(0, 300) }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      });
    }

    /** Every leaf of `v` (objects and arrays, a few levels down) as a path of keys. */
    function leaves(v: Json, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
      if (at.length < 4 && v !== null && typeof v === 'object') {
        const entries = Array.isArray(v) ? v.map((x, i) => [i, x] as const) : Object.entries(v);
        if (entries.length === 0) out.push(at);
        for (const [k, x] of entries) leaves(x, [...at, k], out);
      } else out.push(at);
      return out;
    }
    function replaced(v: Json, path: (string | number)[], value: Json): Json {
      if (path.length === 0) return value;
      const copy: any = Array.isArray(v) ? [...v] : { ...(v as object) };
      copy[path[0]!] = replaced(copy[path[0]!], path.slice(1), value);
      return copy;
    }

    test('no 5xx, whatever the input', async () => {
      const app = createApp(e.g.core, e.g.services);
      const seen = new Set<string>();
      const routes = app.routes
        .filter((r) => r.method !== 'ALL' && !seen.has(`${r.method} ${r.path}`) && seen.add(`${r.method} ${r.path}`))
        .map((r) => ({ method: r.method, route: r.path }))
        // Destructive routes last, so the ones before them still find their targets.
        .sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE') || Number(a.route === '/api/auth/logout') - Number(b.route === '/api/auth/logout'));
      assert.ok(routes.length > 60, `${routes.length} routes`);
      const failures: string[] = [];
      let sent = 0;
      const t0 = performance.now();
      const check = async (what: string, method: string, path: string, headers: Record<string, string>, body?: string | Buffer) => {
        sent++;
        let r: Reply;
        try {
          r = await send(method, path, headers, body);
        } catch (err) {
          failures.push(`${what}: ${method} ${path.slice(0, 120)}: connection failed (${(err as Error).message})`);
          return;
        }
        if (r.status >= 500) failures.push(`${what}: ${method} ${path.slice(0, 120)} → ${r.status} ${r.text.slice(0, 200)}`);
      };

      for (const { method, route } of routes) {
        const params = paramsOf(route);
        const good = Object.fromEntries(params.map((p) => [p, goodParam(route, p)]));
        const path = fill(route, good);
        const hasBody = method !== 'GET' && method !== 'HEAD';
        const sample = samples[`${method} ${route}`];
        const json = { 'content-type': 'application/json' };
        const sampleText = sample === undefined ? undefined : JSON.stringify(sample);
        // Sign-in and sign-up replace the session they are sent with, and logout ends it: they get
        // none, or a fresh one, so the owner's own stays valid for the routes after them.
        const fresh = async (): Promise<Record<string, string>> => {
          if (route === '/api/auth/login' || route === '/api/auth/register') return {};
          if (route !== '/api/auth/logout') return headersFor(path);
          const s = await createSession(accountsDeps(e.g.core), e.g.people.owner.userId);
          return { cookie: `service_session=${s.token}; service_csrf=${s.csrf}`, 'x-csrf-token': s.csrf };
        };

        // Path parameters, one at a time.
        for (const p of params) {
          for (const bad of BAD_SEGMENTS) await check('param', method, fill(route, { ...good, [p]: bad }), { ...(await fresh()), ...(sampleText ? json : {}) }, sampleText);
        }
        // Query strings, and (on workspace routes) the x-workspace-id header.
        for (const q of BAD_QUERIES) await check('query', method, `${path}?${q}`, { ...(await fresh()), ...(sampleText ? json : {}) }, sampleText);
        if (route.startsWith('/api/app/') && method === 'GET') {
          for (const ws of BAD_WORKSPACES) await check('workspace header', method, path, headersFor(path, { 'x-workspace-id': ws }));
        }
        if (!hasBody) continue;
        // Whole bodies: not JSON, wrong JSON, prototype keys, deep nesting, under odd content types.
        for (const raw of RAW_BODIES) await check('raw body', method, path, { ...(await fresh()), ...json }, raw);
        await check('bad utf-8', method, path, { ...(await fresh()), ...json }, Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0x22, 0x7d]));
        for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16']) {
          await check('content type', method, path, { ...(await fresh()), 'content-type': type }, sampleText ?? 'a=%00&b=1');
        }
        if (sample === undefined) continue;
        // Every leaf of the sample body, replaced by each bad value; and prototype keys added.
        for (const [i, leaf] of leaves(sample).entries()) {
          for (const bad of valuesFor(i)) await check(`leaf ${leaf.join('.')}`, method, path, { ...(await fresh()), ...json }, body(replaced(sample, leaf, bad)));
        }
        if (sample !== null && typeof sample === 'object' && !Array.isArray(sample)) {
          for (const key of ['__proto__', 'constructor', 'toString', '\u0000']) {
            await check(`key ${JSON.stringify(key)}`, method, path, { ...(await fresh()), ...json }, `{"${key === '\u0000' ? '\\u0000' : key}":{"a":1},${sampleText!.slice(1)}`);
          }
        }
      }
      const ms = Math.round(performance.now() - t0);
      // eslint-disable-next-line no-console
      console.log(`fuzz (${store}): ${sent} requests over ${routes.length} routes in ${ms} ms`);
      assert.deepEqual(failures.slice(0, 40), [], `${failures.length} answers were 5xx`);
    });
  });
}
