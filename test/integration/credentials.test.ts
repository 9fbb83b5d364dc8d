// Access tokens, member keys and admin tokens (issue 3 item 6) on a real store: issued once, listed
// as a preview only, revoked with immediate effect in this process, expiring on the injected clock,
// malformed tokens refused before any lookup, and usable as Bearer on Bearer-only routes.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { wellFormed } from '../../core/auth/tokens.ts';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { createApp, type App } from '../../daemon/app.ts';
import { requireBearer } from '../../daemon/middleware/bearer.ts';
import { testCore, type Fixture } from './http-fixture.ts';
import { bearer, cast, json, type Cast } from './people.ts';

/** Bearer-only test routes: the real run API and /api/v1 come in later issues. */
function withBearerRoutes(core: Core, services: Services): App {
  return createApp(core, services, {
    routes(app, core, services) {
      app.get('/test/member', requireBearer(core, services, 'member'), (c) => c.json(c.get('principal')));
      app.get('/test/access', requireBearer(core, services, 'access'), (c) => c.json(c.get('principal')));
    },
  });
}

/** Counts store queries that touch the credentials table (wraps the real Db's methods). */
function countCredentialQueries(core: Core): { count(): number } {
  let n = 0;
  const db = core.db as unknown as Record<'one' | 'all' | 'run', (sql: string, params?: unknown[]) => Promise<unknown>>;
  for (const m of ['one', 'all', 'run'] as const) {
    const orig = db[m].bind(core.db);
    db[m] = (sql, params) => {
      if (/\bcredentials\b/.test(sql)) n++;
      return orig(sql, params);
    };
  }
  return { count: () => n };
}

/** Changes one character of the random body, keeping the alphabet: the checksum no longer matches. */
function flipOne(token: string): string {
  const i = token.length - 10;
  const ch = token[i] === 'a' ? 'b' : 'a';
  return token.slice(0, i) + ch + token.slice(i + 1);
}

for (const store of ['sqlite', 'postgres'] as const) {
  describe(`credentials (${store})`, () => {
    let fx: Fixture;
    let app: App;
    let people: Cast;
    let queries: { count(): number };
    beforeAll(async () => {
      fx = await testCore({ store });
      app = withBearerRoutes(fx.core, fx.services);
      people = await cast(fx.core);
      queries = countCredentialQueries(fx.core);
    });
    afterAll(() => fx.cleanup());

    /** Headers of a signed-in person acting in the operator workspace (`workspace: null`: their own). */
    const as = (p: keyof Omit<Cast, 'workspace'>, extra: { workspace?: string | null } = {}) =>
      people[p].headers(extra.workspace === null ? {} : { workspace: extra.workspace ?? people.workspace });

    test('access token: created once with id first, listed as a preview, usable as Bearer, revoked at once', async () => {
      const res = await app.request('/api/app/access-tokens', json('POST', { name: 'ci' }, as('viewer')));
      assert.equal(res.status, 201);
      const text = await res.text();
      const created = JSON.parse(text) as Record<string, unknown> & { id: string; token: string };
      assert.deepEqual(Object.keys(created).slice(0, 2), ['id', 'token']);
      assert.ok(created.token.startsWith('svc_pat_') && wellFormed(created.token, 'access'));
      assert.equal(created.preview, `svc_pat_…${created.token.slice(-4)}`);
      assert.equal(created.status, 'active');

      const list = await app.request('/api/app/access-tokens', { headers: as('viewer') });
      const listText = await list.text();
      assert.equal(list.status, 200);
      assert.ok(!listText.includes(created.token), 'a list never carries the token');
      const rows = (JSON.parse(listText) as { data: Array<Record<string, unknown>> }).data;
      assert.deepEqual(rows.map((r) => [r.id, r.preview, 'token' in r]), [[created.id, created.preview, false]]);

      // Another user's list does not show it, and they cannot revoke it.
      const others = (await (await app.request('/api/app/access-tokens', { headers: as('owner') })).json()) as { data: unknown[] };
      assert.equal(others.data.length, 0);
      assert.equal((await app.request(`/api/app/access-tokens/${created.id}`, { method: 'DELETE', headers: as('owner') })).status, 404);

      const ok = await app.request('/test/access', bearer(created.token));
      assert.equal(ok.status, 200);
      assert.equal(((await ok.json()) as { userId: string }).userId, people.viewer.userId);

      const del = await app.request(`/api/app/access-tokens/${created.id}`, { method: 'DELETE', headers: as('viewer') });
      assert.equal(del.status, 200);
      assert.equal(((await del.json()) as { status: string }).status, 'revoked');
      assert.equal((await app.request('/test/access', bearer(created.token))).status, 401, 'refused on the very next request');
    });

    test('member key: members and above, limits validated, own or admin revoke, warm cache, revoked → 401 at once', async () => {
      const limits = { requestsPerMinute: 60, tokensPerMonth: 1_000_000 };
      assert.equal((await app.request('/api/app/keys', json('POST', { name: 'k' }, as('viewer')))).status, 403);
      for (const bad of [{ requestsPerMinute: 0 }, { tokensPerMinute: -1 }, { tokensPerMonth: 1.5 }, { requestsPerMinute: '10' }, { burst: 1 }]) {
        const r = await app.request('/api/app/keys', json('POST', { name: 'k', limits: bad }, as('member')));
        assert.equal(r.status, 400, JSON.stringify(bad));
      }
      assert.equal((await app.request('/api/app/keys', json('POST', { name: 'k', role: 'owner' }, as('member')))).status, 400, 'unknown keys refused');

      const res = await app.request('/api/app/keys', json('POST', { name: 'laptop', limits }, as('member')));
      assert.equal(res.status, 201);
      const key = (await res.json()) as { id: string; token: string; workspaceId: string; userId: string; limits: unknown };
      assert.ok(key.token.startsWith('svc_live_'));
      assert.equal(key.workspaceId, people.workspace);
      assert.equal(key.userId, people.member.userId);
      assert.deepEqual(key.limits, limits);

      // Lists: own keys by default; ?all=1 only for admins and above.
      const own = (await (await app.request('/api/app/keys', { headers: as('member') })).json()) as { data: Array<{ id: string }> };
      assert.deepEqual(own.data.map((k) => k.id), [key.id]);
      assert.equal((await app.request('/api/app/keys?all=1', { headers: as('member') })).status, 403);
      const adminOwn = (await (await app.request('/api/app/keys', { headers: as('admin') })).json()) as { data: unknown[] };
      assert.equal(adminOwn.data.length, 0);
      const all = await app.request('/api/app/keys?all=1', { headers: as('admin') });
      const allText = await all.text();
      assert.ok(!allText.includes(key.token));
      assert.deepEqual((JSON.parse(allText) as { data: Array<{ id: string }> }).data.map((k) => k.id), [key.id]);

      // Works as Bearer; the second request is served from the cache without touching the store.
      const first = await app.request('/test/member', bearer(key.token));
      assert.equal(first.status, 200);
      assert.deepEqual(((await first.json()) as { limits: unknown }).limits, limits);
      const before = queries.count();
      assert.equal((await app.request('/test/member', bearer(key.token))).status, 200);
      assert.equal(queries.count(), before, 'warm cache: no credential query');

      // A session cookie is not a credential on a Bearer route, and a key is not an access token.
      assert.equal((await app.request('/test/member', { headers: as('member') })).status, 401);
      assert.equal((await app.request('/test/access', bearer(key.token))).status, 401);

      // Another member cannot revoke it (404, not 403), nor can an outsider from their own workspace.
      const other = (await (await app.request('/api/app/keys', json('POST', { name: 'other' }, as('owner')))).json()) as { id: string; token: string };
      assert.equal((await app.request(`/api/app/keys/${other.id}`, { method: 'DELETE', headers: as('member') })).status, 404);
      assert.equal((await app.request(`/api/app/keys/${key.id}`, { method: 'DELETE', headers: as('outsider', { workspace: null }) })).status, 404);

      // The member revokes their own; an admin revokes anyone's of their role or lower, not the
      // owner's (403: nobody acts on a higher role), which only an owner revokes. Refused at once.
      assert.equal((await app.request(`/api/app/keys/${key.id}`, { method: 'DELETE', headers: as('member') })).status, 200);
      assert.equal((await app.request('/test/member', bearer(key.token))).status, 401);
      assert.equal((await app.request('/test/member', bearer(other.token))).status, 200);
      assert.equal((await app.request(`/api/app/keys/${other.id}`, { method: 'DELETE', headers: as('admin') })).status, 403);
      assert.equal((await app.request('/test/member', bearer(other.token))).status, 200);
      assert.equal((await app.request(`/api/app/keys/${other.id}`, { method: 'DELETE', headers: as('owner') })).status, 200);
      assert.equal((await app.request('/test/member', bearer(other.token))).status, 401);
    });

    test('admin token: operators only (judged on the operator workspace), scopes checked, revoked → 401', async () => {
      const body = { name: 'prometheus', scopes: ['usage:read'] };
      assert.equal((await app.request('/api/app/admin-tokens', json('POST', body, as('member')))).status, 403);
      // The outsider owns their own workspace, but it is not the operator workspace.
      assert.equal((await app.request('/api/app/admin-tokens', json('POST', body, as('outsider', { workspace: null })))).status, 403);
      assert.equal((await app.request('/api/app/admin-tokens', { headers: as('outsider', { workspace: null }) })).status, 403);
      for (const scopes of [[], ['usage:write'], 'usage:read']) {
        assert.equal((await app.request('/api/app/admin-tokens', json('POST', { name: 'x', scopes }, as('owner')))).status, 400, JSON.stringify(scopes));
      }

      const res = await app.request('/api/app/admin-tokens', json('POST', body, as('admin')));
      assert.equal(res.status, 201);
      const tok = (await res.json()) as { id: string; token: string; scopes: string[] };
      assert.ok(tok.token.startsWith('svc_admin_'));
      assert.deepEqual(tok.scopes, ['usage:read']);
      // An operator acting in another workspace (their own) is still an operator.
      const own = await app.request('/api/app/admin-tokens', json('POST', { name: 'no-scope', scopes: ['members:read'] }, as('admin', { workspace: null })));
      assert.equal(own.status, 201);
      const noScope = (await own.json()) as { id: string; token: string };

      const list = await app.request('/api/app/admin-tokens', { headers: as('admin') });
      const listText = await list.text();
      assert.ok(!listText.includes(tok.token) && !listText.includes(noScope.token));
      assert.equal((JSON.parse(listText) as { data: unknown[] }).data.length, 2);
      const ownerAll = (await (await app.request('/api/app/admin-tokens?all=1', { headers: as('owner') })).json()) as { data: unknown[] };
      assert.equal(ownerAll.data.length, 2);

      assert.equal((await app.request('/api/admin/metrics', bearer(tok.token))).status, 200);
      assert.equal((await app.request('/api/admin/metrics', bearer(noScope.token))).status, 403);
      assert.equal((await app.request(`/api/app/admin-tokens/${tok.id}`, { method: 'DELETE', headers: as('member') })).status, 403);
      assert.equal((await app.request(`/api/app/admin-tokens/${tok.id}`, { method: 'DELETE', headers: as('owner') })).status, 200);
      assert.equal((await app.request('/api/admin/metrics', bearer(tok.token))).status, 401, 'refused on the very next request');
    });

    test('expiry on the injected clock: valid until expiresAt, then 401 even from a warm cache; past expiry refused', async () => {
      const now = fx.core.clock.now();
      const past = await app.request('/api/app/keys', json('POST', { name: 'old', expiresAt: new Date(now - 1000).toISOString() }, as('member')));
      assert.equal(past.status, 400);
      assert.equal((await app.request('/api/app/keys', json('POST', { name: 'bad', expiresAt: 'tomorrow' }, as('member')))).status, 400);

      const res = await app.request('/api/app/keys', json('POST', { name: 'short', expiresAt: new Date(now + 3_600_000).toISOString() }, as('member')));
      assert.equal(res.status, 201);
      const key = (await res.json()) as { id: string; token: string };
      assert.equal((await app.request('/test/member', bearer(key.token))).status, 200); // now cached
      fx.clock.advance(3_600_000 - 1);
      assert.equal((await app.request('/test/member', bearer(key.token))).status, 200);
      fx.clock.advance(1);
      assert.equal((await app.request('/test/member', bearer(key.token))).status, 401);
      const list = (await (await app.request('/api/app/keys', { headers: as('member') })).json()) as { data: Array<{ id: string; status: string }> };
      assert.equal(list.data.find((k) => k.id === key.id)?.status, 'expired');
    });

    test('a malformed token (one character changed) is refused before any store lookup', async () => {
      const res = await app.request('/api/app/keys', json('POST', { name: 'shape' }, as('member')));
      const key = (await res.json()) as { token: string };
      const forged = flipOne(key.token);
      assert.notEqual(forged, key.token);
      assert.equal(wellFormed(forged, 'member'), false);
      const before = queries.count();
      for (const t of [forged, key.token.slice(0, -1), `${key.token}x`, key.token.replace('svc_live_', 'svc_pat_'), 'svc_live_']) {
        const r = await app.request('/test/member', bearer(t));
        assert.equal(r.status, 401, t);
        assert.equal(r.headers.get('www-authenticate'), 'Bearer');
      }
      assert.equal(queries.count(), before, 'no credential query for a malformed token');
      assert.equal((await app.request('/test/member', bearer(key.token))).status, 200);
    });

    test('member keys die with the membership: demotion to viewer or removal revokes them at once', async () => {
      const mk = async () => ((await (await app.request('/api/app/keys', json('POST', { name: 'tmp' }, as('member')))).json()) as { token: string }).token;
      const k1 = await mk();
      assert.equal((await app.request('/test/member', bearer(k1))).status, 200, 'cached now');
      const demote = await app.request(`/api/app/members/${people.member.userId}`, json('PATCH', { role: 'viewer' }, as('admin')));
      assert.equal(demote.status, 200);
      assert.equal((await app.request('/test/member', bearer(k1))).status, 401, 'a viewer holds no key');
      assert.equal((await app.request(`/api/app/members/${people.member.userId}`, json('PATCH', { role: 'member' }, as('admin')))).status, 200);
      const k2 = await mk();
      assert.equal((await app.request('/test/member', bearer(k2))).status, 200);
      const rm = await app.request(`/api/app/members/${people.member.userId}`, { method: 'DELETE', headers: as('admin') });
      assert.equal(rm.status, 204);
      assert.equal((await app.request('/test/member', bearer(k2))).status, 401, 'removed members lose their keys');
    });
  });
}
