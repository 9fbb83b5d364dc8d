// Bytes allocated per gateway request at c=1, svc vs the bare proxy: steadier than timings,
// and what the GC share of a request grows with (docs/performance.md). ALLOC_TOP=n lists sites.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { repoRoot, startFakeUpstream, startServer, tempDir } from './lib.mjs';
import { once, post, setUp } from './gateway.bench.mjs';
import { V8_FLAGS } from '../../scripts/v8-flags.mjs';

export const name = 'alloc';
export const description = 'bytes allocated per chat request at c=1, plain and streamed (svc vs a bare node proxy)';

const REQUESTS = Number(process.env.BENCH_ALLOC_REQUESTS ?? 3000);
const WARMUP = Number(process.env.BENCH_ALLOC_WARMUP ?? 1000);
const SAMPLER = join(repoRoot, 'test', 'bench', 'heap-sampler.mjs');

export async function run() {
  const home = tempDir('svc-bench-alloc-');
  const pin = availableParallelism() >= 2;
  const fake = await startFakeUpstream(pin ? '1' : undefined);
  const rows = [];
  try {
    for (const stream of [false, true]) {
      const kind = stream ? 'streamed' : 'non-streamed';
      const s = await sampled('svc', [join(repoRoot, 'cli', 'main.ts'), 'serve'], { HOME: home.dir, SERVICE_DB_PATH: join(home.dir, `svc-${kind}.db`) }, '/api/health', home.dir, pin, async (origin) => {
        const key = await setUp(origin, fake.url);
        return { path: '/api/v1/chat/completions', model: 'bench/bench-model', key };
      }, stream);
      const b = await sampled('bare', [join(repoRoot, 'test', 'bench', 'bare-proxy.mjs'), fake.origin], {}, '/health', home.dir, pin, async () => ({ path: '/api/v1/chat/completions', model: 'bench-model', key: 'unused' }), stream);
      rows.push({ metric: `${kind} chat: KB allocated per request (baseline: bare proxy)`, value: s.perRequest / 1024, baseline: b.perRequest / 1024 });
      if (process.env.ALLOC_TOP) printTop(kind, s.profile, Number(process.env.ALLOC_TOP));
    }
  } finally {
    await fake.stop();
    home.remove();
  }
  return rows;
}

async function sampled(label, args, env, healthPath, dir, pin, target, stream) {
  const out = join(dir, `${label}.heapprofile`);
  rmSync(out, { force: true });
  const argv = [...V8_FLAGS, '--import', SAMPLER, ...args];
  const [cmd, cmdArgs] = pin ? ['taskset', ['-c', '0', process.execPath, ...argv]] : [process.execPath, argv];
  const server = await startServer(cmd, cmdArgs, { PATH: '/usr/bin:/bin', ...env, HEAP_SAMPLE_OUT: out }, healthPath);
  const origin = `http://127.0.0.1:${server.port}`;
  const pool = new Pool(origin, { connections: 1 });
  try {
    const t = await target(origin);
    const req = { pool, path: t.path, ...post(t, stream) };
    for (let i = 0; i < WARMUP; i++) await once(req, stream);
    await signalled(server, out, false);
    for (let i = 0; i < REQUESTS; i++) await once(req, stream);
    await signalled(server, out, true);
    const profile = JSON.parse(readFileSync(out, 'utf8'));
    return { perRequest: total(profile.head) / REQUESTS, profile };
  } finally {
    await pool.close();
    await server.stop();
  }
}

/** Waits until sampling has started or the profile is on disk. */
async function signalled(server, out, stop) {
  server.child.kill('SIGUSR2');
  const until = performance.now() + 10_000;
  while (performance.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    if (!stop) return; // enable + startSampling take well under 100 ms
    if (existsSync(out)) {
      try {
        JSON.parse(readFileSync(out, 'utf8'));
        return;
      } catch {} // still being written
    }
  }
  throw new Error('bench: the heap sampler wrote no profile');
}

function total(node) {
  let sum = node.selfSize;
  for (const c of node.children) sum += total(c);
  return sum;
}

function printTop(kind, profile, n) {
  const by = new Map();
  (function walk(node) {
    const f = node.callFrame;
    const k = `${f.functionName || '(anon)'} ${f.url.replace(/^.*\/(node_modules\/)?/, '')}:${f.lineNumber + 1}`;
    by.set(k, (by.get(k) ?? 0) + node.selfSize);
    for (const c of node.children) walk(c);
  })(profile.head);
  process.stderr.write(`alloc: svc ${kind}, bytes per request by allocation site:\n`);
  for (const [k, v] of [...by].sort((a, b) => b[1] - a[1]).slice(0, n)) process.stderr.write(`${(v / REQUESTS).toFixed(0).padStart(8)} B  ${k}\n`);
}
