import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../kernel/config/index.ts';
import { checkConfig } from './config-checks.ts';
import { checkDataDir } from './fs-checks.ts';
import { checkLocalTarget } from './target-checks.ts';
import { healthy } from './types.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'svc-doctor-'));

describe('doctor: configuration', () => {
  it('flags an unknown registration mode as a failure with the fix', () => {
    const { findings } = checkConfig({ HOME: '/h', SERVICE_REGISTRATION_MODE: 'closed' });
    const f = findings.find((x) => x.check === 'config.registration');
    assert.equal(f?.status, 'fail');
    assert.match(f!.fix!, /SERVICE_REGISTRATION_MODE=invite_only/);
    assert.equal(healthy(findings), false);
  });
  it('reports every config problem with the variable name', () => {
    const { config, findings } = checkConfig({ HOME: '/h', NODE_ENV: 'production' });
    assert.equal(config, undefined);
    assert.ok(findings.length >= 9);
    assert.ok(findings.every((f) => f.status === 'fail' && /^[A-Z_]+: /.test(f.message) && f.fix));
  });
  it('a clean development environment is healthy', () => {
    assert.equal(healthy(checkConfig({ HOME: '/h' }).findings), true);
  });
});

describe('doctor: data directory', () => {
  it('fails an unwritable directory and low disk, passes a good one', () => {
    const dir = tmp();
    const good = checkDataDir(loadConfig({ HOME: dir, SERVICE_DB_PATH: join(dir, 'a', 'svc.db') }).config, () => 10 * 1024 ** 3);
    assert.equal(healthy(good), true);
    const low = checkDataDir(loadConfig({ HOME: dir, SERVICE_DB_PATH: join(dir, 'svc.db') }).config, () => 1024);
    assert.equal(low.find((f) => f.check === 'disk')?.status, 'fail');
    if (process.getuid?.() !== 0) {
      const ro = join(dir, 'ro');
      mkdirSync(ro, { mode: 0o500 });
      const bad = checkDataDir(loadConfig({ HOME: dir, SERVICE_DB_PATH: join(ro, 'svc.db') }).config);
      assert.equal(bad.find((f) => f.check === 'data-dir')?.status, 'fail');
    }
  });
  it('fails a secrets file readable by others', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'secrets.json'), '{}');
    chmodSync(join(dir, 'secrets.json'), 0o644);
    const f = checkDataDir(loadConfig({ HOME: dir, SERVICE_DB_PATH: join(dir, 'svc.db') }).config, () => 1e12);
    const s = f.find((x) => x.check === 'secrets' && x.status === 'fail');
    assert.match(s!.fix!, /chmod 600/);
  });
});

describe('doctor: local model target', () => {
  it('ok when /models lists models; fail when unreachable or erroring; fail on timeout', async () => {
    let mode: 'ok' | 'err' | 'hang' = 'ok';
    const server = createServer((req, res) => {
      if (mode === 'hang') return;
      if (mode === 'err' || req.url !== '/v1/models') { res.statusCode = 500; res.end(); return; }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'llama3.2', object: 'model' }] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const cfg = loadConfig({ HOME: '/h', LOCAL_LLM_BASE_URL: `http://127.0.0.1:${port}/v1` }).config;
      assert.equal((await checkLocalTarget(cfg))[0]!.status, 'ok');
      mode = 'err';
      assert.match((await checkLocalTarget(cfg))[0]!.message, /answered 500/);
      mode = 'hang';
      const t = await checkLocalTarget(cfg, 200);
      assert.equal(t[0]!.status, 'fail');
      assert.match(t[0]!.message, /timed out after 200 ms/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
    const down = loadConfig({ HOME: '/h', LOCAL_LLM_BASE_URL: `http://127.0.0.1:${port}/v1` }).config;
    assert.equal((await checkLocalTarget(down))[0]!.status, 'fail');
  });
  it('ok when no local target is configured', async () => {
    assert.equal((await checkLocalTarget(loadConfig({ HOME: '/h' }).config))[0]!.status, 'ok');
  });
});

describe('doctor: exposure', () => {
  it('warns when svc listens beyond loopback with a plain-http origin, not otherwise', () => {
    const warn = checkConfig({ HOME: '/h', SERVICE_HOST: '0.0.0.0' }).findings.find((f) => f.check === 'config.exposure');
    assert.equal(warn?.status, 'warn');
    assert.match(warn!.message, /SERVICE_HOST=0\.0\.0\.0.*unencrypted/);
    assert.match(warn!.fix!, /docs\/deploy\.md/);
    for (const env of [{}, { SERVICE_HOST: '::1' }, { SERVICE_HOST: '0.0.0.0', SERVICE_APP_ORIGIN: 'https://svc.example.com', SERVICE_PREVIEW_ORIGIN: 'https://p.example.com' }]) {
      assert.equal(checkConfig({ HOME: '/h', ...env }).findings.some((f) => f.check === 'config.exposure'), false, JSON.stringify(env));
    }
  });
});

describe('doctor: looks, never changes', () => {
  it('on an empty HOME it creates no data dir, database or secrets file', async () => {
    const { runDoctor } = await import('./index.ts');
    const home = tmp();
    const findings = await runDoctor({ HOME: home });
    assert.deepEqual(readdirSync(home), [], 'doctor created files');
    const store = findings.find((f) => f.check === 'store');
    assert.equal(store?.status, 'ok');
    assert.match(store!.message, /does not exist yet/);
  });
  it('a regular file where the data dir should be is a failure, not a writable dir', () => {
    const dir = tmp();
    const file = join(dir, 'afile');
    writeFileSync(file, '');
    const { config } = checkConfig({ HOME: dir, SERVICE_DB_PATH: join(file, 'svc.db') });
    const f = checkDataDir(config!).find((x) => x.check === 'data-dir');
    assert.equal(f?.status, 'fail');
    assert.match(f!.message, /is a file, not a directory/);
  });
  it('an unreachable local target names the cause (ECONNREFUSED), not "fetch failed"', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    await new Promise<void>((r) => srv.close(() => r()));
    const { config } = checkConfig({ HOME: tmp(), LOCAL_LLM_BASE_URL: `http://127.0.0.1:${port}/v1` });
    const [f] = await checkLocalTarget(config!);
    assert.equal(f?.status, 'fail');
    assert.match(f!.message, /ECONNREFUSED/);
    assert.doesNotMatch(f!.message, /fetch failed/);
  });
});

describe('doctor: store', () => {
  it('reads an existing, migrated SQLite file read-only and reports its schema current', async () => {
    const { openDb, migrate } = await import('../store/index.ts');
    const { checkStore } = await import('./store-checks.ts');
    const home = tmp();
    const { config } = checkConfig({ HOME: home });
    const db = await openDb(config!);
    await migrate(db);
    await db.close();
    const before = statSync(config!.dbPath).mtimeMs;
    const findings = await checkStore(config!);
    assert.deepEqual(findings.map((f) => [f.check, f.status]), [['store', 'ok'], ['migrations', 'ok']], JSON.stringify(findings));
    assert.equal(statSync(config!.dbPath).mtimeMs, before);
  });
});
