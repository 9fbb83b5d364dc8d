// kill -9 a `svc worker` while its run_code program runs (the built binary, SQLite and PostgreSQL):
// the sandbox dies with the worker, nothing of it survives, and the run — reclaimed by another
// worker — is not executed again: the model is told the call was interrupted and the run completes.
// Executions are counted from outside: every sandboxed runner whose /sandbox/main.js carries the
// test's marker is one execution (read through /proc/PID/root as root).
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeOpenAi } from '../helpers/fake-upstream.ts';
import { createScratchDatabase } from '../helpers/pgdb.ts';
import { cluster, setUp, sleep, until } from './harness.ts';

/** Pids of sandboxed runners executing a program that contains `marker`. */
function executions(marker: string): number[] {
  const out: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      // The runner itself, not bwrap (whose arguments end with the same command).
      const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      if (argv[0] !== '/usr/bin/node' || argv[1] !== '__sandbox-node') continue;
      if (readFileSync(`/proc/${p}/root/sandbox/main.js`, 'utf8').includes(marker)) out.push(Number(p));
    } catch {}
  }
  return out;
}

/** Cgroup directories made for executions of the given svc process. */
function cgroupsOf(pid: number): string[] {
  const out: string[] = [];
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const m = /^\d+:(memory|pids|cpu,cpuacct|cpuacct,cpu|cpuacct):(.*)$/.exec(line);
    if (!m) continue;
    const dir = join('/sys/fs/cgroup', m[1]!, m[2]!);
    try {
      out.push(...readdirSync(dir).filter((n) => n.startsWith(`svc-sbx-${pid}-`)).map((n) => join(dir, n)));
    } catch {}
  }
  return out;
}

for (const store of ['sqlite', 'postgres'] as const) {
  test(`kill -9 a worker mid run_code (${store}): no second execution, no surviving sandbox process`, { timeout: 120_000 }, async () => {
    const scratch = store === 'postgres' ? await createScratchDatabase('svc_fault_sbx') : undefined;
    const c = cluster({ ...(scratch ? { databaseUrl: scratch.url } : {}), env: { SERVICE_EMBEDDED_WORKERS: '0', SERVICE_SANDBOX_TIMEOUT_MS: '60000' } });
    const fake = await fakeOpenAi({ record: true });
    const marker = `sbx-fault-${store}-${Date.now()}`;
    const seen = new Set<number>();
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        for (const pid of executions(marker)) seen.add(pid);
        await sleep(25);
      }
    })();
    try {
      const { origin } = await c.serve();
      const api = await setUp(origin, fake.url, { tools: [{ type: 'run_code' }] });
      fake.once({ toolCalls: [{ id: 'call_sleep', name: 'run_code', arguments: JSON.stringify({ code: `console.log('started'); setInterval(() => {}, 1000); // ${marker}` }) }] });
      fake.script({ text: 'done' });
      const started = await api.startAsync('run code then crash');
      assert.equal(started.status, 202, JSON.stringify(started.body));

      const w1 = c.worker(1);
      await until(() => seen.size > 0, 'the sandboxed program to start', 30_000, 25);
      const workerPid = w1.child.pid!;
      await sleep(300);
      await w1.kill9();
      // --die-with-parent and the pid namespace take every process of the sandbox down with it.
      await until(() => executions(marker).length === 0, 'the sandbox to die with its worker', 5000, 25);

      const w2 = c.worker(1);
      const read = async () => {
        const r = await fetch(`${origin}/api/agents/${api.agentId}/runs/${started.body.runId}`, { headers: { authorization: `Bearer ${api.token}` } });
        return (await r.json()) as any;
      };
      let body: any;
      await until(async () => {
        assert.ok(seen.size <= 1, `the program was executed again (${seen.size} executions)`);
        return ['completed', 'failed'].includes((body = await read()).run.status);
      }, 'the reclaimed run to finish', 60_000, 100);
      assert.equal(body.run.status, 'completed', JSON.stringify(body.run));
      assert.equal(body.run.outputText, 'done');
      assert.equal(seen.size, 1, `the program ran ${seen.size} times`);

      const tool = body.steps.find((s: any) => s.kind === 'tool');
      assert.equal(tool.status, 'completed');
      const shown = JSON.parse(tool.output);
      assert.equal(shown.interrupted, true);
      assert.match(shown.message, /interrupted[\s\S]*not run again/);
      const chats = fake.requests.filter((r) => r.path.endsWith('/chat/completions'));
      assert.equal(chats.length, 2, 'one model call before the crash, one after');
      const last = chats[1]!.body.messages as { role: string; content: string }[];
      assert.match(last.at(-1)!.content, /"interrupted":true/);

      // The surviving worker keeps executing code, and clears the killed worker's cgroups on the way.
      fake.once({ toolCalls: [{ id: 'call_ok', name: 'run_code', arguments: JSON.stringify({ code: "console.log('after the crash')" }) }] });
      const again = await api.startAsync('run code again');
      let body2: any;
      await until(async () => {
        const r = await fetch(`${origin}/api/agents/${api.agentId}/runs/${again.body.runId}`, { headers: { authorization: `Bearer ${api.token}` } });
        body2 = await r.json();
        return ['completed', 'failed'].includes(body2.run.status);
      }, 'a second run on the new worker', 60_000, 100);
      assert.equal(body2.run.status, 'completed', JSON.stringify(body2));
      assert.equal(JSON.parse(body2.steps.find((s: any) => s.kind === 'tool').output).stdout, 'after the crash\n');
      assert.deepEqual(cgroupsOf(workerPid), [], 'the killed worker\'s cgroups were removed');
      await w2.stop();
    } finally {
      watching = false;
      await watcher;
      await c.close();
      await fake.close();
      await scratch?.drop();
    }
  });
}
