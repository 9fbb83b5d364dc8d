// The 5-second fallback: another process holds the SQLite write lock for 6 s (BEGIN IMMEDIATE and
// sleep) while an async run is started. The answer is still 202, given at about 5 s, and the run
// completes in the web process (no worker runs anywhere) with a `run.fallback` event saying it is
// not durable.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { createInterface } from 'node:readline';
import { repoRoot } from '../helpers/binary.ts';
import { cluster, countingFake, setUp, spawnProc, until } from './harness.ts';

const LOCKER = `
const db = new (require('better-sqlite3'))(process.argv[1]);
db.exec('BEGIN IMMEDIATE');
db.prepare("UPDATE jobs SET kind = kind WHERE 0").run();
console.log('locked');
setTimeout(() => { db.exec('COMMIT'); db.close(); console.log('released'); }, 6000);
`;

test('write lock held 6 s by another process: 202 at ~5 s, the run completes in the web process', { timeout: 90_000 }, async () => {
  const c = cluster();
  const fake = await countingFake(0);
  try {
    const { origin } = await c.serve({ SERVICE_EMBEDDED_WORKERS: '0' });
    const api = await setUp(origin, fake.url);
    const warm = await api.startAsync('warm-up'); // the token, agent and version are cached by now
    assert.equal(warm.status, 202);

    const locker = spawnProc('locker', process.execPath, ['-e', LOCKER, c.dbPath], { PATH: '/usr/bin:/bin', NODE_PATH: `${repoRoot}node_modules` });
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: locker.child.stdout! }).on('line', (l) => l === 'locked' && resolve());
      void locker.exited.then((code) => reject(new Error(`locker exited ${code}: ${locker.output()}`)));
    });
    const lockedAt = performance.now();
    const r = await api.startAsync('held-lock run');
    const answeredAfter = performance.now() - lockedAt;
    console.log(`fallback: answered ${r.status} after ${r.ms.toFixed(0)} ms (${answeredAfter.toFixed(0)} ms after the lock was taken)`);
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.ok(r.ms >= 4500 && r.ms < 6000, `answered at about 5 s (${r.ms.toFixed(0)} ms), before the lock was released`);
    assert.equal(typeof r.body.runId, 'string');
    await locker.exited;

    let run: any;
    await until(async () => {
      const res = await fetch(`${origin}/api/agents/${api.agentId}/runs/${r.body.runId}`, { headers: { authorization: `Bearer ${api.token}` } });
      run = res.status === 200 ? await res.json() : undefined;
      return run?.run?.status === 'completed';
    }, 'the fallback run to complete', 30_000);
    assert.equal(run.run.durable, false);
    const ev = run.events.find((e: { kind: string }) => e.kind === 'run.fallback');
    assert.ok(ev, `a run.fallback event: ${JSON.stringify(run.events.map((e: { kind: string }) => e.kind))}`);
    assert.equal((ev.data ?? ev.payload ?? ev).durable, false);
    assert.equal(fake.callsPer().get('held-lock run#2'), 1, 'the model was called once, by the web process');
  } finally {
    await c.close();
    await fake.close();
  }
});
