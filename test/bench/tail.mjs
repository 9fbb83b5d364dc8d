// Where the c=1 latency tail comes from; a tool, not a section (docs/performance.md).
// scripts/n node test/bench/tail.mjs [plain|stream] [N]; TAIL_WARMUP, TAIL_PERF=sched, TAIL_SVC_FLAGS.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { repoRoot, startFakeUpstream, startServer, tempDir } from './lib.mjs';
import { LATENCY_WARMUP, once, post, setUp } from './gateway.bench.mjs';
import { V8_FLAGS } from '../../scripts/v8-flags.mjs';

const stream = process.argv[2] === 'stream';
const N = Number(process.argv[3] ?? 10_000);
const WARMUP = Number(process.env.TAIL_WARMUP ?? LATENCY_WARMUP);
const dir = tempDir('svc-tail-');
const gcPrefix = join(dir.dir, 'gc');
const preload = ['--import', join(repoRoot, 'test', 'bench', 'gc-log.mjs')];
const env = { PATH: '/usr/bin:/bin', GC_LOG_PREFIX: gcPrefix };
const pin = (cmd) => ['taskset', ['-c', '0', ...cmd]];

const fake = await startFakeUpstream('0', { GC_LOG_PREFIX: gcPrefix, NODE_OPTIONS: preload.join(' ') });
const svcFlags = (process.env.TAIL_SVC_FLAGS ?? '').split(' ').filter(Boolean);
const svc = await startServer(...pin([process.execPath, ...V8_FLAGS, ...svcFlags, ...preload, join(repoRoot, 'cli', 'main.ts'), 'serve']), { ...env, HOME: dir.dir, SERVICE_DB_PATH: join(dir.dir, 'svc.db') });
const bare = await startServer(...pin([process.execPath, ...preload, join(repoRoot, 'test', 'bench', 'bare-proxy.mjs'), fake.origin]), env, '/health');
execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)]);
const key = await setUp(`http://127.0.0.1:${svc.port}`, fake.url);
const paths = [
  { name: 'svc', origin: `http://127.0.0.1:${svc.port}`, path: '/api/v1/chat/completions', model: 'bench/bench-model', key },
  { name: 'direct', origin: fake.origin, path: '/v1/chat/completions', model: 'bench-model', key: 'sk-unused' },
  { name: 'bare', origin: `http://127.0.0.1:${bare.port}`, path: '/api/v1/chat/completions', model: 'bench-model', key: 'sk-unused' },
].map((t) => ({ ...t, pool: new Pool(t.origin, { connections: 1 }), ...post(t, stream), samples: [] }));

let perf;
const perfData = join(dir.dir, 'perf.data');
for (let i = 0; i < WARMUP + N; i++) {
  if (i === WARMUP && process.env.TAIL_PERF === 'sched') {
    perf = spawn('perf', ['sched', 'record', '-k', 'CLOCK_MONOTONIC', '-a', '-o', perfData], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 500));
  }
  for (const p of paths) {
    const t0 = performance.now();
    const ms = await once(p, stream);
    if (i >= WARMUP) p.samples.push([t0, ms]);
  }
}
if (perf) {
  perf.kill('SIGINT');
  await new Promise((r) => perf.once('exit', r));
}
for (const p of paths) await p.pool.close();
await Promise.all([svc.stop(), bare.stop(), fake.stop()]);

const names = { [svc.child.pid]: 'svc', [fake.child.pid]: 'fake', [bare.child.pid]: 'bare' };
const pauses = Object.fromEntries(
  readdirSync(dir.dir)
    .filter((f) => f.startsWith('gc.'))
    .map((f) => [names[f.split('.')[1]] ?? f, JSON.parse(readFileSync(join(dir.dir, f), 'utf8'))]),
);
const origin = performance.timeOrigin;
for (const p of paths) {
  const sorted = p.samples.sort((a, b) => a[1] - b[1]);
  const at = (q) => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))][1] * 1000).toFixed(0);
  p.slowest = sorted.slice(Math.floor(0.99 * sorted.length));
  const hits = {};
  let any = 0;
  for (const [t0, ms] of p.slowest) {
    const start = origin + t0;
    const inGc = Object.entries(pauses).filter(([, ev]) => ev.some(([s, d]) => s < start + ms && s + d > start));
    for (const [who] of inGc) hits[who] = (hits[who] ?? 0) + 1;
    if (inGc.length) any++;
  }
  console.log(`${p.name.padEnd(6)} µs: p50 ${at(0.5)} p90 ${at(0.9)} p98 ${at(0.98)} p99 ${at(0.99)} p99.9 ${at(0.999)}; slowest 1% (${p.slowest.length}): ${any} overlap a GC pause ${JSON.stringify(hits)}`);
}
console.log(`GC pauses per server over the whole run: ${Object.entries(pauses).map(([k, v]) => `${k} ${v.length}`).join(', ')}`);
if (perf) schedReport(paths[0].slowest);
dir.remove();

/** By `perf sched timehist`. */
function schedReport(slowest) {
  const text = execFileSync('perf', ['sched', 'timehist', '-i', perfData], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
  // Columns: time, [cpu], task[tid/pid], wait, sch delay, run time (ms). The time is the switch-out.
  const runs = [];
  for (const line of text.split('\n')) {
    const m = /^\s*([\d.]+)\s+\[0000\]\s+(.+?)\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s*$/.exec(line);
    if (!m) continue;
    const t = /^(.*)\[(\d+)(?:\/(\d+))?\]$/.exec(m[2]);
    const who = t ? `${names[t[3] ?? t[2]] ?? 'other'}:${t[1]}` : m[2];
    runs.push([Number(m[1]) * 1000, who, Number(m[3])]);
  }
  // performance.now() and perf's CLOCK_MONOTONIC differ by a constant.
  const mono = Number(process.hrtime.bigint()) / 1e6 - performance.now();
  const largest = {};
  for (const [t0, ms] of slowest) {
    const from = t0 + mono;
    const by = {};
    for (const [end, who, run] of runs) if (end >= from && end <= from + ms) by[who] = (by[who] ?? 0) + Math.min(run, end - from);
    const top = Object.entries(by).sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'nothing';
    largest[top] = (largest[top] ?? 0) + 1;
  }
  console.log(`svc's slowest 1%, by the thread that ran longest on core 0 inside the request: ${JSON.stringify(largest)}`);
}
