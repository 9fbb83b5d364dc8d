// 500 concurrent async starts against `svc serve` on SQLite with its embedded workers (the
// one-process home-lab default, SERVICE_EMBEDDED_WORKERS=auto → 2): SIGKILL the web process once
// half the starts have been answered, start it again, and every run that got a 202 reaches a
// terminal state — the ones queued, the ones the embedded workers were executing at the kill
// (reclaimed when their lease expires), all of them. Sizes: 150 here, 500 with SVC_FAULT_FULL=1.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { cluster, countingFake, setUp, size, startAsync, sleep } from './harness.ts';
import { account, nonTerminalCount, sqliteReader } from './store-read.ts';

test('kill -9 the web process halfway through concurrent async starts: every 202 reaches a terminal state', { timeout: 170_000 }, async () => {
  const n = size(150, 500);
  const c = cluster();
  const fake = await countingFake(30);
  const reader = () => sqliteReader(c.dbPath);
  try {
    const first = await c.serve();
    const api = await setUp(first.origin, fake.url);
    const accepted: string[] = [];
    const other: Record<string, number> = {};
    let answered = 0;
    let killed = false;
    const killedAt = new Promise<void>((resolve) => {
      const all = Array.from({ length: n }, (_, i) =>
        startAsync(first.origin, api.token, api.agentId, `web-kill-${i}`, 20_000)
          .then((r) => {
            if (r.status === 202) accepted.push(r.body.runId);
            else other[r.status] = (other[r.status] ?? 0) + 1;
          })
          .catch((err: Error) => {
            const k = (err.cause as { code?: string })?.code ?? err.name;
            other[k] = (other[k] ?? 0) + 1;
          })
          .finally(() => {
            if (++answered >= n / 2 && !killed) {
              killed = true;
              void first.proc.kill9().then(resolve);
            }
          }),
      );
      void Promise.all(all).then(() => resolve());
    });
    await killedAt;
    await sleep(200); // the rest of the in-flight requests see the connection drop
    const acceptedBeforeKill = accepted.length;
    assert.ok(killed && acceptedBeforeKill >= n / 2 - 1, `kill happened halfway (${acceptedBeforeKill} accepted)`);

    await c.serve(); // same store, same embedded workers
    const r = reader();
    try {
      const end = Date.now() + 90_000;
      while ((await nonTerminalCount(r)) > 0 && Date.now() < end) await sleep(200);
      const acct = await account(r, accepted);
      const fallback = await r.all<{ n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE durable = 0`);
      const repeated = [...fake.callsPer()].filter(([, k]) => k > 1);
      console.log(`kill-web (${n} starts): ${JSON.stringify({ accepted: accepted.length, notAccepted: other, rows: acct.total, byStatus: acct.byStatus, byError: acct.byError, fallbackRuns: fallback[0]?.n, repeatedCalls: repeated.length })}`);
      assert.deepEqual(acct.missing, [], 'a run that got a 202 has no row');
      assert.deepEqual(acct.nonTerminal, [], 'runs left non-terminal');
      assert.deepEqual(repeated, []);
      // Starts whose answer was cut off by the kill may or may not have committed; never more rows than starts.
      assert.ok(acct.total <= n);
    } finally {
      await r.close();
    }
  } finally {
    await c.close();
    await fake.close();
  }
});
