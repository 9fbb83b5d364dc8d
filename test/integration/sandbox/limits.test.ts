// Every limit of the run_code sandbox, broken by a program, through a real agent run — in the
// request and queued, on SQLite and PostgreSQL: each call ends as a tool result naming the limit,
// the run completes, and the sandbox keeps working afterwards (the last call).
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import type { Dialect } from '../../../core/store/types.ts';
import { expectLimit, leftoverCgroups, runCases, startSandboxRuns, type Case, type SandboxEnv } from './setup.ts';

const NODE_CASES: Case[] = [
  { id: 'time', code: "console.log('waiting forever'); setInterval(() => {}, 1000);", check: expectLimit('time', (r) => {
    assert.equal(r.exitCode, 137);
    assert.equal(r.stdout, 'waiting forever\n');
  }) },
  { id: 'cpu', code: 'for (;;) {}', check: expectLimit('cpu', (r) => assert.equal(r.exitCode, 152)) },
  { id: 'memory', code: "const b = Buffer.alloc(2 * 1024 ** 3); b.fill(1); console.log('allocated 2 GB');", check: expectLimit('memory', (r) => assert.doesNotMatch(r.stdout, /allocated/)) },
  {
    id: 'processes',
    code: "const { spawn } = require('node:child_process'); for (let i = 0; i < 500; i++) spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']); setInterval(() => {}, 1000);",
    check: expectLimit('processes'),
  },
  { id: 'storage', code: "require('node:fs').writeFileSync('/tmp/fill', Buffer.alloc(64 * 1024 * 1024, 1));", check: expectLimit('storage', (r) => assert.match(r.stderr, /ENOSPC/)) },
  { id: 'after', code: "console.log('still working')", check: expectLimit(null, (r) => assert.deepEqual([r.exitCode, r.stdout], [0, 'still working\n'])) },
];

const PYTHON_CASES: Case[] = [
  { id: 'py_time', code: 'import time\ntime.sleep(100)', check: expectLimit('time') },
  { id: 'py_cpu', code: 'while True:\n    pass', check: expectLimit('cpu') },
  { id: 'py_memory', code: "b = bytearray(2 * 1024 ** 3)\nprint('allocated')", check: expectLimit('memory') },
  { id: 'py_processes', code: 'import os\nwhile True:\n    os.fork()', check: expectLimit('processes') },
  { id: 'py_storage', code: "open('/tmp/fill', 'wb').write(b'x' * (64 * 1024 * 1024))", check: expectLimit('storage') },
  { id: 'py_after', code: "print('still working')", check: expectLimit(null, (r) => assert.equal(r.stdout, 'still working\n')) },
];

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`run_code limits (${store})`, () => {
    let e: SandboxEnv;
    beforeAll(async () => {
      e = await startSandboxRuns(store);
    });
    afterAll(() => e.close());

    for (const mode of ['in-request', 'queued'] as const) {
      test(`node: time, cpu, memory, processes, storage — ${mode}`, async () => {
        await runCases(e, NODE_CASES, mode);
        assert.deepEqual(leftoverCgroups(), []);
      });
    }
  });
}

describe('run_code limits, python runtime (sqlite)', () => {
  let e: SandboxEnv;
  beforeAll(async () => {
    e = await startSandboxRuns('sqlite', { SERVICE_SANDBOX_RUNTIME: 'python' });
  });
  afterAll(() => e.close());
  test('python: time, cpu, memory, processes, storage — in-request', async () => {
    await runCases(e, PYTHON_CASES, 'in-request');
  });
});
