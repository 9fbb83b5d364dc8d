// The shared fault scenario: `svc serve` (no embedded workers) takes N async starts, `svc worker`
// processes execute them against the counting fake model while `fault` hurts them (SIGKILL,
// terminated connections, a database restart). Workers are supervised like systemd's
// Restart=always: whatever ends one, it is started again. At the end the store and the fake
// are compared: every accepted run has a row, every row is terminal, no (run, step) was called twice.
import { cluster, countingFake, pool, setUp, sleep, type Cluster, type Proc } from './harness.ts';
import { account, nonTerminalCount, pgReader, sqliteReader, type Accounting } from './store-read.ts';

export interface FaultContext {
  c: Cluster;
  workers: Proc[];
  /** Number of model calls currently waiting on the fake (calls in flight). */
  inflight(): number;
  /** Resolves once every start has been answered. */
  startsDone: Promise<void>;
  finished(): boolean;
}

export interface ScenarioOptions {
  databaseUrl?: string;
  runs: number;
  workers: number;
  concurrency: number;
  latencyMs: number;
  workerEnv?: Record<string, string>;
  /** Runs alongside; returns what it did (reported). Must return once ctx.finished() is true. */
  fault(ctx: FaultContext): Promise<Record<string, number>>;
  /** Bound on the whole scenario after the starts. */
  settleMs: number;
}

export interface ScenarioResult {
  accepted: string[];
  refused: Record<number, number>;
  acct: Accounting;
  /** (input#messages) keys the fake saw more than once. */
  repeated: [string, number][];
  /** Completed runs whose input the fake never saw (the answer cannot have come from nowhere). */
  completedWithoutCall: number;
  calls: number;
  faults: Record<string, number>;
  workerRestarts: number;
  /** Workers that ended by themselves (not killed by the test): exit code and the log's tail. */
  exits: string[];
  seconds: number;
}

export async function runScenario(o: ScenarioOptions): Promise<ScenarioResult> {
  const c = cluster(o.databaseUrl ? { databaseUrl: o.databaseUrl } : {});
  const fake = await countingFake(o.latencyMs);
  let reader;
  let stopped = false;
  const t0 = performance.now();
  try {
    const { origin } = await c.serve({ SERVICE_EMBEDDED_WORKERS: '0' });
    const api = await setUp(origin, fake.url);
    reader = o.databaseUrl ? pgReader(o.databaseUrl) : sqliteReader(c.dbPath);

    let workerRestarts = 0;
    const exits: string[] = [];
    const workers: Proc[] = [];
    const supervise = (i: number) => {
      const w = c.worker(o.concurrency, o.workerEnv);
      workers[i] = w;
      void w.exited.then((code) => {
        if (stopped) return;
        workerRestarts++;
        if (code !== 'SIGKILL') exits.push(`exit ${code}: ${w.output().slice(-6000)}`);
        supervise(i);
      });
    };
    for (let i = 0; i < o.workers; i++) supervise(i);

    const accepted: string[] = [];
    const refused: Record<number, number> = {};
    const inputs = Array.from({ length: o.runs }, (_, i) => `fault-run-${i}`);
    const idOf = new Map<string, string>();
    const startsDone = pool(inputs, 16, async (input) => {
      const r = await api.startAsync(input);
      if (r.status === 202) {
        accepted.push(r.body.runId);
        idOf.set(r.body.runId, input);
      } else refused[r.status] = (refused[r.status] ?? 0) + 1;
    }).then(() => {});

    let finished = false;
    const faultDone = o.fault({
      c, workers, startsDone, finished: () => finished,
      inflight: () => fake.inflight(),
    });
    await startsDone;
    const deadline = Date.now() + o.settleMs;
    while ((await nonTerminalCount(reader)) > 0 && Date.now() < deadline) await sleep(200);
    finished = true;
    const faults = await faultDone;
    // Let the last writes land: a straggler could still be finishing a run.
    const acct = await account(reader, accepted);
    stopped = true;
    await Promise.all(workers.map((w) => w.stop(3000)));

    const per = fake.callsPer();
    const repeated = [...per].filter(([, n]) => n > 1);
    const seen = new Set([...per.keys()].map((k) => k.split('#')[0]));
    const completed = await reader.all<{ id: string }>(`SELECT id FROM runs WHERE status = 'completed'`);
    const completedWithoutCall = completed.filter((r) => !seen.has(idOf.get(r.id))).length;
    return {
      accepted, refused, acct, repeated, completedWithoutCall, calls: fake.requests.length, faults, workerRestarts, exits,
      seconds: (performance.now() - t0) / 1000,
    };
  } finally {
    stopped = true;
    await reader?.close();
    await c.close();
    await fake.close();
  }
}

export function summary(r: ScenarioResult): string {
  return JSON.stringify({
    accepted: r.accepted.length, refused: r.refused, byStatus: r.acct.byStatus, byError: r.acct.byError,
    missing: r.acct.missing.length, nonTerminal: r.acct.nonTerminal.length, calls: r.calls,
    repeatedCalls: r.repeated.length, completedWithoutCall: r.completedWithoutCall,
    faults: r.faults, workerRestarts: r.workerRestarts, seconds: Number(r.seconds.toFixed(1)),
  });
}
