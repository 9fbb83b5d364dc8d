// Operator metrics (issue 3 item 7) over real HTTP: the exposition of a running server, after some
// traffic, passes `promtool check metrics`; requests are labelled by route template (never the raw
// path, which can carry a token) and refused authentications are counted.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { fileURLToPath } from 'node:url';
import { createCore, type Core } from '../../core/index.ts';
import { openServices } from '../../core/services.ts';
import { startServer, type ServerHandle } from '../../daemon/server.ts';
import { TEST_SCRYPT, testCore, type Fixture } from './http-fixture.ts';
import { bearer, cast, json, type Cast } from './people.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** promtool from scripts/promtool.sh; a machine that cannot provide it fails the test with the reason. */
function promtool(): string {
  const r = spawnSync(join(root, 'scripts/promtool.sh'), { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `scripts/promtool.sh could not provide promtool:\n${r.stderr}${r.error ?? ''}`);
  return r.stdout.trim();
}

/** `name{labels} value` lines of one metric, as label-string → value. */
function samples(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(\w+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m && m[1] === name) out.set(m[2] ?? '', Number(m[3]));
  }
  return out;
}

describe('operator metrics', () => {
  let fx: Fixture;
  let core: Core;
  let server: ServerHandle;
  let base: string;
  let people: Cast;
  let text: string;

  beforeAll(async () => {
    fx = await testCore();
    // The fixture turns process metrics off; the scrape promtool checks should include them.
    const f = fx.core;
    core = createCore({ config: f.config, secrets: f.secrets, db: f.db, log: f.log, clock: fx.clock, scrypt: TEST_SCRYPT });
    server = await startServer(core, await openServices(core), { port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${server.port}`;
    people = await cast(core);

    // Traffic: a key created and revoked through its id route, a 404, refused credentials.
    const ws = { workspace: people.workspace };
    const created = await fetch(`${base}/api/app/keys`, json('POST', { name: 'm' }, people.member.headers(ws)));
    const key = (await created.json()) as { id: string; token: string };
    await (await fetch(`${base}/api/app/keys/${key.id}`, { method: 'DELETE', headers: people.member.headers(ws) })).arrayBuffer();
    await (await fetch(`${base}/api/app/keys`, { headers: people.member.headers(ws) })).arrayBuffer();
    await (await fetch(`${base}/api/no-such-route/secretsecretsecret`)).arrayBuffer();
    await (await fetch(`${base}/api/app/keys`)).arrayBuffer();
    await (await fetch(`${base}/api/admin/metrics`, bearer(key.token))).arrayBuffer();
    await (await fetch(`${base}/api/admin/metrics`, { headers: people.member.headers() })).arrayBuffer();

    const res = await fetch(`${base}/api/admin/metrics`, { headers: people.owner.headers() });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    text = await res.text();
  });
  afterAll(async () => {
    await server?.close(1000);
    await fx?.cleanup();
  });

  test('promtool check metrics accepts the exposition', () => {
    const bin = promtool();
    const r = spawnSync(bin, ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, `promtool check metrics:\n${r.stdout}${r.stderr}`);
    // And it really checks: a malformed exposition is refused.
    const bad = spawnSync(bin, ['check', 'metrics'], { input: `${text}svc_bad{x="1" 1\n`, encoding: 'utf8', timeout: 60_000 });
    assert.notEqual(bad.status, 0);
  });

  test('process metrics, request count and latency by route template, auth failures', () => {
    assert.ok(samples(text, 'svc_process_cpu_user_seconds_total').size === 1, 'process metrics present');
    const requests = samples(text, 'svc_http_requests_total');
    assert.equal(requests.get('{method="POST",route="/api/app/keys",status="201"}'), 1);
    assert.equal(requests.get('{method="DELETE",route="/api/app/keys/:id",status="200"}'), 1);
    assert.equal(requests.get('{method="GET",route="/api/app/keys",status="401"}'), 1, 'refused before the handler, still its template');
    assert.equal(requests.get('{method="GET",route="unmatched",status="404"}'), 1);
    assert.equal(requests.get('{method="GET",route="/api/admin/metrics",status="401"}'), 1);
    assert.equal(requests.get('{method="GET",route="/api/admin/metrics",status="403"}'), 1);
    assert.ok(!text.includes('secretsecret') && !text.includes('cred_'), 'no raw path, id or token in any label');
    assert.ok(samples(text, 'svc_http_request_duration_seconds_count').get('{method="POST",route="/api/app/keys",status="201"}') === 1);

    const failures = samples(text, 'svc_auth_failures_total');
    assert.equal(failures.get('{surface="session",reason="missing"}'), 1);
    assert.equal(failures.get('{surface="admin",reason="invalid"}'), 1);
    assert.equal(failures.get('{surface="operator",reason="not_operator"}'), 1);
  });
});
