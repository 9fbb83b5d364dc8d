// Kill -9 `svc worker` processes at random while runs execute (SQLite, 4 workers on one store):
// 0 runs lost, 0 provider calls repeated, every run terminal. A run whose model call was in flight
// at the kill ends `failed` with ambiguous_provider_call — correct (the provider may have served
// and billed it) — and is counted. The mutation check runs the same scenario with the ledger
// check disabled (SVC_TEST_DISABLE_LEDGER=1, honoured only under NODE_ENV=test) and asserts the
// test's detector then sees repeated calls: the guarantee is measured, not assumed.
// Sizes: 200 runs here, 1,000 with SVC_FAULT_FULL=1.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { size, sleep } from './harness.ts';
import { runScenario, summary, type FaultContext } from './scenario.ts';

/** Every 150–450 ms, SIGKILL a random worker that has a model call in flight (supervision restarts it). */
async function killer(ctx: FaultContext, maxKills: number): Promise<Record<string, number>> {
  let kills = 0;
  let killedMidCall = 0;
  while (!ctx.finished() && kills < maxKills) {
    await sleep(150 + Math.random() * 300);
    if (ctx.finished()) break;
    const w = ctx.workers[Math.floor(Math.random() * ctx.workers.length)];
    if (!w?.alive()) continue;
    if (ctx.inflight() > 0) killedMidCall++;
    kills++;
    await w.kill9();
  }
  return { kills, killsWithCallsInFlight: killedMidCall };
}

test('kill -9 workers at random while runs execute: none lost, no call repeated, all terminal', { timeout: 170_000 }, async () => {
  const runs = size(200, 1000);
  const r = await runScenario({
    runs, workers: 4, concurrency: 8, latencyMs: 40, settleMs: size(60_000, 240_000),
    fault: (ctx) => killer(ctx, size(25, 80)),
  });
  console.log(`kill-workers (${runs} runs): ${summary(r)}`);
  assert.equal(r.accepted.length, runs, `every start answered 202: ${JSON.stringify(r.refused)}`);
  assert.equal(r.acct.missing.length, 0, 'runs lost');
  assert.equal(r.acct.total, runs);
  assert.deepEqual(r.acct.nonTerminal, [], 'runs not terminal');
  assert.deepEqual(r.repeated, [], 'provider calls repeated');
  assert.equal(r.completedWithoutCall, 0);
  assert.ok(r.faults.kills! >= 5, `enough kills happened: ${r.faults.kills}`);
  // The only failure a kill may cause is the ambiguous call (the run's step was in flight).
  const failed = (r.acct.byStatus.failed ?? 0) + (r.acct.byStatus.timed_out ?? 0);
  assert.equal(failed, r.acct.byError.ambiguous_provider_call ?? 0, `failures other than ambiguous calls: ${JSON.stringify(r.acct.byError)}`);
  assert.equal((r.acct.byStatus.completed ?? 0) + failed, runs);
});

/**
 * For the mutation check: once at least `minInflight` model calls are in flight, SIGKILL every
 * worker at once. Killing them all (not a random one) is what makes the check deterministic: every
 * call in flight at that moment belongs to a killed worker, so its run must be executed again.
 * The fake's latency (400 ms) dwarfs the time between the check and the kill.
 */
async function killAllMidCall(ctx: FaultContext, minInflight: number, rounds: number): Promise<Record<string, number>> {
  let kills = 0;
  let inflightAtKill = 0;
  for (let round = 0; round < rounds && !ctx.finished(); round++) {
    while (!ctx.finished() && ctx.inflight() < minInflight) await sleep(10);
    if (ctx.finished()) break;
    inflightAtKill += ctx.inflight();
    await Promise.all(ctx.workers.filter((w) => w?.alive()).map((w) => (kills++, w.kill9())));
    await sleep(1500); // lease (1 s) expiry and supervised restarts before the next round
  }
  return { kills, killsWithCallsInFlight: inflightAtKill };
}

test('mutation check: with the ledger disabled the same scenario repeats provider calls', { timeout: 120_000 }, async () => {
  const r = await runScenario({
    runs: 60, workers: 2, concurrency: 8, latencyMs: 400, settleMs: 60_000,
    workerEnv: { SVC_TEST_DISABLE_LEDGER: '1' },
    fault: (ctx) => killAllMidCall(ctx, 4, 2),
  });
  console.log(`kill-workers, ledger disabled: ${summary(r)}`);
  assert.ok(r.faults.killsWithCallsInFlight! >= 4, `calls were in flight at the kill: ${JSON.stringify(r.faults)}`);
  assert.ok(r.repeated.length > 0, 'the detector must see repeated calls when the ledger is off');
});
