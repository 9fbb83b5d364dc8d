import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { AppError } from '../../core/kernel/errors.ts';
import { StoreBusy } from '../../core/store/types.ts';
import { migrate } from '../../core/store/index.ts';
import { createApp, type App } from '../../daemon/app.ts';
import { readJson } from '../../daemon/http/json-body.ts';
import { sqliteCore, type Fixture } from './http-fixture.ts';
import { register } from '../../core/accounts/register.ts';
import { issueCredential } from '../../core/credentials/service.ts';
import { accountsDeps } from '../../core/services.ts';

const Echo = z.strictObject({ name: z.string().min(1), n: z.number().int().max(10), nested: z.strictObject({ b: z.string() }).optional() });

/** Test-only routes mounted behind the real middleware. */
function testRoutes(app: App): void {
  for (const base of ['/api/test', '/api/v1/test']) {
    app.post(`${base}/echo`, async (c) => c.json(await readJson(c, Echo)));
    app.post(`${base}/ignore-body`, (c) => c.json({ ok: true }));
    app.get(`${base}/app-error`, () => {
      throw new AppError('slug_taken', 'That name is taken.', { field: 'name' });
    });
    app.get(`${base}/boom`, () => {
      throw new Error('secret internal detail');
    });
  }
  app.get('/api/test/busy', () => {
    throw new StoreBusy(new Error('SQLITE_BUSY'));
  });
  app.get('/api/test/throw-string', () => {
    throw 'not an error object';
  });
  app.get('/api/test/rate-limited', () => {
    throw new AppError('rate_limited', 'Slow down.', { headers: { 'Retry-After': '7' } });
  });
}

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

function chunked(sizes: number[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      const size = sizes[i++];
      if (size === undefined) controller.close();
      else controller.enqueue(new TextEncoder().encode(i === 1 ? '{"name":"' + 'x'.repeat(Math.max(0, size - 9)) : 'x'.repeat(size)));
    },
  });
}

async function memberKey(fx: Fixture): Promise<string> {
  const deps = { ...accountsDeps(fx.core), registrationMode: 'open' };
  const a = await register(deps, { email: 'http-core@example.test', password: 'correct horse battery', name: 'http' });
  const cred = await issueCredential(
    { db: fx.core.db, clock: fx.core.clock, tokenKey: fx.core.auth.tokenKey, cache: fx.core.auth.credentialCache },
    { kind: 'member', userId: a.user.id, workspaceId: a.workspaces[0]!.id, name: 'http-test' },
  );
  return cred.token;
}

async function errorBody(res: Response): Promise<Record<string, unknown>> {
  const body = (await res.json()) as { error: Record<string, unknown> };
  assert.ok(body.error, 'error envelope');
  return body.error;
}

describe('HTTP core (in-process, real SQLite)', () => {
  let fx: Fixture;
  let app: App;
  beforeAll(async () => {
    fx = await sqliteCore({ env: { SERVICE_BODY_LIMIT_BYTES: '1024', SERVICE_GATEWAY_BODY_LIMIT_BYTES: '4096' } });
    const real = createApp(fx.core, fx.services, { routes: testRoutes });
    // /api/v1 is Bearer-only (member keys): requests there carry a real key so they reach the
    // test routes behind the gateway's auth, exactly as a client's would.
    const key = await memberKey(fx);
    app = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop !== 'request') return Reflect.get(target, prop, receiver);
        return (path: string, init: RequestInit = {}) => {
          if (!path.startsWith('/api/v1')) return target.request(path, init);
          const headers = new Headers(init.headers);
          if (!headers.has('authorization')) headers.set('authorization', `Bearer ${key}`);
          return target.request(path, { ...init, headers });
        };
      },
    });
  });
  afterAll(() => fx.cleanup());

  describe('request id', () => {
    test('a valid incoming x-request-id is kept', async () => {
      const res = await app.request('/api/health', { headers: { 'x-request-id': 'proxy-trace.42:a_b' } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-request-id'), 'proxy-trace.42:a_b');
    });
    test('an invalid or missing one is replaced by a generated id', async () => {
      const bad = await app.request('/api/health', { headers: { 'x-request-id': 'has space<script>' } });
      const none = await app.request('/api/health');
      const a = bad.headers.get('x-request-id');
      const b = none.headers.get('x-request-id');
      assert.match(a ?? '', /^req_[0-9a-f]{32}$/);
      assert.match(b ?? '', /^req_[0-9a-f]{32}$/);
      assert.notEqual(a, b);
    });
    test('errors carry it in the header and in the body', async () => {
      const res = await app.request('/api/test/boom', { headers: { 'x-request-id': 'rid-500' } });
      assert.equal(res.status, 500);
      assert.equal(res.headers.get('x-request-id'), 'rid-500');
      assert.equal((await errorBody(res)).requestId, 'rid-500');
    });
  });

  describe('not found', () => {
    test('/api shape', async () => {
      const res = await app.request('/api/nope', { headers: { 'x-request-id': 'rid-404' } });
      assert.equal(res.status, 404);
      assert.equal(res.headers.get('x-request-id'), 'rid-404');
      const e = await errorBody(res);
      assert.equal(e.code, 'not_found');
      assert.equal(e.requestId, 'rid-404');
      assert.equal(typeof e.message, 'string');
    });
    test('/api/v1 uses the OpenAI shape', async () => {
      const res = await app.request('/api/v1/nope');
      assert.equal(res.status, 404);
      assert.ok(res.headers.get('x-request-id'));
      assert.deepEqual(Object.keys(await errorBody(res.clone())).sort(), ['code', 'message', 'param', 'type']);
      const e = await errorBody(res);
      assert.equal(e.code, 'not_found');
      assert.equal(e.type, 'not_found_error');
      assert.equal(e.param, null);
    });
  });

  describe('body limit', () => {
    test('a declared Content-Length over the limit is refused before the handler reads anything', async () => {
      const res = await app.request('/api/test/ignore-body', { ...json({ name: 'a', n: 1 }), headers: { 'content-type': 'application/json', 'content-length': '5000' } });
      assert.equal(res.status, 413);
      assert.equal((await errorBody(res)).code, 'payload_too_large');
    });
    test('a chunked body is counted as it streams', async () => {
      const res = await app.request('/api/test/echo', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: chunked([600, 600, 600]),
        duplex: 'half',
      } as RequestInit);
      assert.equal(res.status, 413);
      assert.equal((await errorBody(res)).code, 'payload_too_large');
    });
    test('a chunked body under the limit is read normally', async () => {
      const parts = ['{"name":', '"chunky",', '"n":3}'];
      const body = new ReadableStream<Uint8Array>({
        pull(c) {
          const p = parts.shift();
          if (p === undefined) c.close();
          else c.enqueue(new TextEncoder().encode(p));
        },
      });
      const res = await app.request('/api/test/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { name: 'chunky', n: 3 });
    });
    test('/api/v1 takes the larger gateway limit and answers 413 in the OpenAI shape past it', async () => {
      const mid = { name: 'x'.repeat(2000), n: 1 };
      assert.equal((await app.request('/api/test/echo', json(mid))).status, 413);
      const ok = await app.request('/api/v1/test/echo', json(mid));
      assert.equal(ok.status, 200);
      const big = await app.request('/api/v1/test/echo', json({ name: 'x'.repeat(5000), n: 1 }));
      assert.equal(big.status, 413);
      const e = await errorBody(big);
      assert.equal(e.code, 'payload_too_large');
      assert.equal(e.type, 'invalid_request_error');
    });
  });

  describe('JSON bodies', () => {
    test('valid JSON (with charset, or a +json type) is parsed and validated', async () => {
      const res = await app.request('/api/test/echo', json({ name: 'a', n: 2 }, { 'content-type': 'application/json; charset=utf-8' }));
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { name: 'a', n: 2 });
      const merge = await app.request('/api/test/echo', json({ name: 'b', n: 1 }, { 'content-type': 'application/merge-patch+json' }));
      assert.equal(merge.status, 200);
    });
    test('415 for text/plain (a cross-site form can send it) and for a missing content type', async () => {
      const plain = await app.request('/api/test/echo', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"name":"a","n":1}' });
      assert.equal(plain.status, 415);
      assert.equal((await errorBody(plain)).code, 'unsupported_media_type');
      const none = await app.request('/api/test/echo', { method: 'POST', body: new Uint8Array(Buffer.from('{"name":"a","n":1}')) });
      assert.equal(none.status, 415);
      const form = await app.request('/api/test/echo', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=a' });
      assert.equal(form.status, 415);
    });
    test('400 invalid_json for malformed or empty bodies, without echoing the body', async () => {
      for (const body of ['{"name": "a",', 'nul', '{"name":"secretvalue"']) {
        const res = await app.request('/api/test/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        assert.equal(res.status, 400, body);
        const e = await errorBody(res);
        assert.equal(e.code, 'invalid_json');
        assert.doesNotMatch(String(e.message), /secretvalue/);
      }
      const empty = await app.request('/api/test/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '' });
      assert.equal(empty.status, 400);
      assert.equal((await errorBody(empty)).code, 'invalid_json');
    });
    test('400 invalid_request names the failing field, nested paths included', async () => {
      const res = await app.request('/api/test/echo', json({ name: 'a', n: 'three' }));
      assert.equal(res.status, 400);
      const e = await errorBody(res);
      assert.equal(e.code, 'invalid_request');
      assert.equal(e.field, 'n');
      assert.match(String(e.message), /^n: /);
      const nested = await errorBody(await app.request('/api/test/echo', json({ name: 'a', n: 1, nested: { b: 5 } })));
      assert.equal(nested.field, 'nested.b');
      const range = await errorBody(await app.request('/api/test/echo', json({ name: 'a', n: 11 })));
      assert.equal(range.field, 'n');
    });
    test('strict schemas refuse unknown keys, and a JSON array or scalar is a 400', async () => {
      const extra = await app.request('/api/test/echo', json({ name: 'a', n: 1, role: 'owner' }));
      assert.equal(extra.status, 400);
      assert.equal((await errorBody(extra)).code, 'invalid_request');
      for (const body of [[1], 'str', 42, null]) {
        const res = await app.request('/api/test/echo', json(body));
        assert.equal(res.status, 400, JSON.stringify(body));
      }
    });
    test('/api/v1 reports the field as the OpenAI `param`', async () => {
      const res = await app.request('/api/v1/test/echo', json({ name: '', n: 1 }));
      assert.equal(res.status, 400);
      const e = await errorBody(res);
      assert.equal(e.param, 'name');
      assert.equal(e.code, 'invalid_request');
      assert.equal(e.type, 'invalid_request_error');
    });
  });

  describe('error model', () => {
    test('an AppError maps to its status, code and field under /api', async () => {
      const res = await app.request('/api/test/app-error');
      assert.equal(res.status, 409);
      const e = await errorBody(res);
      assert.deepEqual({ code: e.code, field: e.field, message: e.message }, { code: 'slug_taken', field: 'name', message: 'That name is taken.' });
      assert.equal(typeof e.requestId, 'string');
    });
    test('and to the OpenAI shape under /api/v1', async () => {
      const res = await app.request('/api/v1/test/app-error');
      assert.equal(res.status, 409);
      assert.deepEqual(await res.json(), { error: { message: 'That name is taken.', type: 'invalid_request_error', param: 'name', code: 'slug_taken' } });
    });
    test('unexpected errors are a generic 500, logged with their detail but never sent', async () => {
      const before = fx.logs.length;
      for (const path of ['/api/test/boom', '/api/test/throw-string', '/api/v1/test/boom']) {
        const res = await app.request(path);
        assert.equal(res.status, 500, path);
        const text = await res.text();
        assert.doesNotMatch(text, /secret internal detail|not an error object|at .*\.ts/);
        assert.match(text, /internal_error/);
      }
      const logged = fx.logs.slice(before).filter((l) => l.level === 'error');
      assert.equal(logged.length, 3);
      assert.match(JSON.stringify(logged[0]), /secret internal detail/);
    });
    test('StoreBusy is a 503 store_busy with Retry-After: 1', async () => {
      const res = await app.request('/api/test/busy');
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('retry-after'), '1');
      assert.equal((await errorBody(res)).code, 'store_busy');
    });
    test('AppError headers are applied', async () => {
      const res = await app.request('/api/test/rate-limited');
      assert.equal(res.status, 429);
      assert.equal(res.headers.get('retry-after'), '7');
    });
  });

  describe('access log', () => {
    test('one line per request; tokens cut to 4 characters; no query string', async () => {
      const before = fx.logs.length;
      // The real share route: an unknown token is its uniform 404.
      const res = await app.request('/api/public/share/shrTOKENabcdef?api_key=querysecret', { headers: { 'x-request-id': 'rid-log' } });
      assert.equal(res.status, 404);
      const lines = fx.logs.slice(before).filter((l) => l.msg === 'request');
      assert.equal(lines.length, 1);
      const line = lines[0]!;
      assert.equal(line.path, '/api/public/share/shrT…');
      assert.equal(line.route, '/api/public/share/:token');
      assert.equal(line.method, 'GET');
      assert.equal(line.status, 404);
      assert.equal(line.requestId, 'rid-log');
      assert.equal(typeof line.durationMs, 'number');
      const raw = JSON.stringify(fx.logs.slice(before));
      assert.doesNotMatch(raw, /TOKENabcdef|querysecret|api_key/);
    });
    test('an encoded slash or letter does not carry a token past the redaction (issue 12, item 8)', async () => {
      const before = fx.logs.length;
      for (const p of ['/api%2Fpublic/share/shrTOKENabcdef', '/api%2fpublic%2Fwebhooks%2Fworkers/whkSECRETvalue', '/api/public/%73hare/shrTOKENabcdef', '/api%252Fpublic/share/shrTOKENabcdef']) {
        await app.request(p);
      }
      const lines = fx.logs.slice(before).filter((l) => l.msg === 'request');
      assert.equal(lines.length, 4);
      assert.deepEqual(lines.map((l) => l.path), ['/api/public/share/shrT…', '/api/public/webhooks/workers/whkS…', '/api/public/share/shrT…', '/api/public/share/shrT…']);
      assert.doesNotMatch(JSON.stringify(fx.logs.slice(before)), /TOKENabcdef|SECRETvalue/);
    });
    test('unmatched webhook paths are redacted too and report no route', async () => {
      const before = fx.logs.length;
      await app.request('/api/public/webhooks/workers/whkSECRETvalue');
      const line = fx.logs.slice(before).find((l) => l.msg === 'request')!;
      assert.equal(line.path, '/api/public/webhooks/workers/whkS…');
      assert.equal(line.status, 404);
      assert.equal(line.route, null);
    });
  });

  describe('health', () => {
    test('liveness answers on both paths', async () => {
      for (const path of ['/api/health', '/api/health/live']) {
        const res = await app.request(path);
        assert.equal(res.status, 200, path);
        assert.deepEqual(await res.json(), { status: 'ok' });
      }
    });
    test('ready when the store answers and the schema is current', async () => {
      const res = await app.request('/api/health/ready');
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { status: 'ready', checks: { store: 'ok', migrations: 'ok' } });
    });
  });
});

describe('readiness against a store that is behind or gone', () => {
  test('503 while a migration is pending, 200 once applied (after the status cache expires)', async () => {
    const fx = await sqliteCore({ migrated: false });
    try {
      const app = createApp(fx.core, fx.services);
      const res = await app.request('/api/health/ready');
      assert.equal(res.status, 503);
      const body = (await res.json()) as { status: string; reasons: string[]; checks: Record<string, string> };
      assert.equal(body.status, 'not_ready');
      assert.equal(body.checks.migrations, 'pending');
      assert.match(body.reasons.join('\n'), /pending/);

      await migrate(fx.core.db);
      // Still cached: probes do not re-read the schema on every call.
      assert.equal((await app.request('/api/health/ready')).status, 503);
      fx.clock.advance(10_000);
      assert.equal((await app.request('/api/health/ready')).status, 200);
    } finally {
      await fx.cleanup();
    }
  });

  test('503 when the store is closed, while liveness stays 200', async () => {
    const fx = await sqliteCore();
    try {
      const app = createApp(fx.core, fx.services);
      assert.equal((await app.request('/api/health/ready')).status, 200);
      await fx.core.close();
      const res = await app.request('/api/health/ready');
      assert.equal(res.status, 503);
      const body = (await res.json()) as { checks: Record<string, string>; reasons: string[] };
      assert.equal(body.checks.store, 'failed');
      assert.match(body.reasons[0]!, /^store: sqlite is not reachable/);
      assert.equal((await app.request('/api/health/live')).status, 200);
      assert.equal((await app.request('/api/health')).status, 200);
    } finally {
      await fx.cleanup();
    }
  });
});
