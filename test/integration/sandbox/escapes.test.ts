// What a program in the run_code sandbox must not reach, tried through a real agent run — in the
// request and queued, on SQLite and PostgreSQL: the network (an outside address, the host's own
// PostgreSQL on 127.0.0.1:5432), the host's files (/etc/shadow, the svc database, the secrets
// file), svc's environment, svc's process, and a process left behind after the call.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import type { Dialect } from '../../../core/store/types.ts';
import { expectLimit, leftoverCgroups, processesWith, runCases, startSandboxRuns, type Case, type SandboxEnv } from './setup.ts';

/** A value put into this (svc's) process environment: no sandbox may see it. */
const HOST_SECRET = `host-secret-${process.pid}-${Date.now()}`;
process.env.SVC_TEST_HOST_SECRET = HOST_SECRET;

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

function cases(e: SandboxEnv, marker: string): Case[] {
  const { config, secrets } = e.r.g.core;
  const files = ['/etc/shadow', config.dbPath, config.secretsFile, '/proc/1/root/etc/shadow'];
  const secretValues = [HOST_SECRET, ...Object.values(secrets).filter((v): v is string => typeof v === 'string')];
  return [
    {
      id: 'outside',
      code: "const s = require('node:net').connect(80, '1.1.1.1'); s.on('connect', () => console.log('CONNECTED')); s.on('error', (e) => { console.error(e.code); process.exit(1); });",
      check: expectLimit('network', (r) => {
        assert.match(r.stderr, /ENETUNREACH/);
        assert.doesNotMatch(r.stdout, /CONNECTED/);
      }),
    },
    {
      id: 'host_postgres',
      code: "const s = require('node:net').connect(5432, '127.0.0.1'); s.on('connect', () => console.log('CONNECTED')); s.on('error', (e) => { console.error(e.code); process.exit(1); });",
      check: expectLimit('network', (r) => assert.match(r.stderr, /ECONNREFUSED/)),
    },
    {
      id: 'dns',
      code: "require('node:dns').lookup('example.com', (err, a) => { if (err) { console.error(err.code); process.exit(1); } console.log(a); });",
      check: expectLimit('network', (r) => assert.match(r.stderr, /EAI_AGAIN|ENOTFOUND/)),
    },
    {
      id: 'host_files',
      code: `const fs = require('node:fs'); const out = {};
        for (const f of ${JSON.stringify(files)}) { try { out[f] = 'READ ' + fs.readFileSync(f, 'utf8').slice(0, 40); } catch (e) { out[f] = e.code; } }
        console.log(JSON.stringify(out));`,
      check: expectLimit(null, (r) => {
        const out = JSON.parse(r.stdout) as Record<string, string>;
        for (const f of files) assert.match(out[f]!, /^(ENOENT|EACCES)$/, `${f}: ${out[f]}`);
      }),
    },
    {
      id: 'environment',
      code: `const fs = require('node:fs'); const seen = [JSON.stringify(process.env)];
        for (const f of ['/proc/self/environ', '/proc/1/environ', '/proc/2/environ']) { try { seen.push(fs.readFileSync(f, 'utf8')); } catch {} }
        console.log(seen.join('\\n'));`,
      check: expectLimit(null, (r) => {
        assert.match(r.stdout, /PATH/);
        for (const v of secretValues) assert.ok(!r.stdout.includes(v), 'a secret of svc was visible');
        assert.doesNotMatch(r.stdout, /SVC_TEST_HOST_SECRET|SERVICE_|DATABASE_URL/);
      }),
    },
    {
      id: 'signal_svc',
      code: `const out = [];
        for (const [pid, sig] of [[${process.pid}, 'SIGKILL'], [${process.ppid}, 'SIGKILL'], [-1, 'SIGKILL']]) { try { process.kill(pid, sig); out.push(pid + ' sent'); } catch (e) { out.push(pid + ' ' + e.code); } }
        console.log(out.join(', '));`,
      // kill(-1) reaches only the sandbox's own processes: the sandbox's init and the caller survive it.
      check: expectLimit(null, (r) => assert.match(r.stdout, new RegExp(`^${process.pid} ESRCH, ${process.ppid} ESRCH, -1 (sent|ESRCH)\\n$`))),
    },
    {
      id: 'leftover',
      code: `require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000) // ${marker}'], { detached: true, stdio: 'ignore' }).unref(); console.log('left one behind');`,
      check: expectLimit(null, (r) => assert.equal(r.stdout, 'left one behind\n')),
    },
  ];
}

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`run_code escapes (${store})`, () => {
    let e: SandboxEnv;
    beforeAll(async () => {
      e = await startSandboxRuns(store);
    });
    afterAll(() => e.close());

    for (const mode of ['in-request', 'queued'] as const) {
      test(`network, host files, environment, signals, leftover processes — ${mode}`, async () => {
        // The targets exist on the host, so "not reachable" is the sandbox's doing.
        assert.ok(await reachable(5432), 'PostgreSQL listens on the host');
        for (const f of ['/etc/shadow', e.r.g.core.config.secretsFile]) assert.ok(existsSync(f), f);
        if (store === 'sqlite') assert.ok(existsSync(e.r.g.core.config.dbPath));
        const marker = `leftover-${store}-${mode}-${Date.now()}`;
        await runCases(e, cases(e, marker), mode);
        assert.deepEqual(processesWith(marker), [], 'no process of the sandbox survives the call');
        assert.deepEqual(leftoverCgroups(), []);
      });
    }
  });
}
