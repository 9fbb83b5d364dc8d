// Instructions per gateway request under callgrind, every thread counted; not a section, as
// callgrind's slowdown makes counts unsteady (docs/performance.md). About 5 min; needs valgrind.
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { distBinary, hasCommand, repoRoot, startFakeUpstream, startServer, tempDir } from './lib.mjs';
import { once, post, setUp } from './gateway.bench.mjs';
import { V8_FLAGS } from '../../scripts/v8-flags.mjs';

// Smaller windows swing more (docs/performance.md).
const REQUESTS = Number(process.env.BENCH_INSTR_REQUESTS ?? 1000);
const WARMUP = Number(process.env.BENCH_INSTR_WARMUP ?? 5000);

async function run() {
  if (!hasCommand('callgrind_control', ['--version'])) return [{ metric: 'instructions per request', value: 0, note: 'skipped: valgrind (callgrind_control) is not installed' }];
  const home = tempDir('svc-bench-instr-');
  // BENCH_INSTR_KEEP=1 keeps the callgrind dumps (callgrind_annotate <file>) and prints where.
  const keep = process.env.BENCH_INSTR_KEEP === '1';
  const fake = await startFakeUpstream();
  const servers = [];
  try {
    // BENCH_INSTR_SOURCE=1: the toolchain's node has symbols; dist/svc has none.
    // BENCH_INSTR_SVC=<path> counts another build (A/B).
    const [cmd, args] = process.env.BENCH_INSTR_SOURCE === '1' ? [process.execPath, [...V8_FLAGS, join(repoRoot, 'cli', 'main.ts'), 'serve']] : [process.env.BENCH_INSTR_SVC ?? distBinary, ['serve']];
    const svc = await underCallgrind('svc', cmd, args, { HOME: home.dir, SERVICE_DB_PATH: join(home.dir, 'svc.db') }, '/api/health', home.dir);
    servers.push(svc);
    const bare = await underCallgrind('bare', process.execPath, [join(repoRoot, 'test', 'bench', 'bare-proxy.mjs'), fake.origin], {}, '/health', home.dir);
    servers.push(bare);
    const key = await setUp(`http://127.0.0.1:${svc.port}`, fake.url);
    const rows = [];
    // BENCH_INSTR_KINDS=stream (or plain) measures one kind only, for a quicker A/B.
    const kinds = (process.env.BENCH_INSTR_KINDS ?? 'plain,stream').split(',');
    for (const stream of [false, true].filter((s) => kinds.includes(s ? 'stream' : 'plain'))) {
      const kind = stream ? 'streamed' : 'non-streamed';
      const s = await count(svc, { path: '/api/v1/chat/completions', model: 'bench/bench-model', key }, stream);
      const b = await count(bare, { path: '/api/v1/chat/completions', model: 'bench-model', key: 'unused' }, stream);
      rows.push({ metric: `${kind} chat: instructions per request, c=1 (baseline: bare node proxy)`, value: s, baseline: b, note: `svc's own share ${fmtK(s - b)}` });
    }
    return rows;
  } finally {
    for (const s of servers) await s.stop();
    await fake.stop();
    if (keep) process.stderr.write(`bench: callgrind dumps kept in ${home.dir}\n`);
    else home.remove();
  }
}

/** Instrumentation off until the warm-up is done. */
async function underCallgrind(label, cmd, args, env, path, dir) {
  const vg = ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${join(dir, `${label}.cg`)}`, '--smc-check=all-non-file', cmd, ...args];
  const s = await startServer('valgrind', vg, { PATH: '/usr/bin:/bin', ...env, SERVICE_LOG_LEVEL: 'info' }, path, 120_000);
  const pid = String(s.child.pid);
  return {
    ...s,
    control: (...a) => execFileSync('callgrind_control', [...a, pid], { stdio: 'ignore' }),
    /** callgrind numbers dumps .1, .2, … in order. */
    lastDump: () => join(dir, readdirSync(dir).filter((f) => f.startsWith(`${label}.cg.`)).sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop())).pop()),
  };
}

async function count(server, t, stream) {
  const pool = new Pool(`http://127.0.0.1:${server.port}`, { connections: 1 });
  const req = { pool, path: t.path, ...post(t, stream) };
  try {
    for (let i = 0; i < WARMUP; i++) await once(req, stream);
    server.control('--instr=on');
    // Instrumenting invalidates valgrind's translations: let them settle first.
    for (let i = 0; i < 50; i++) await once(req, stream);
    server.control('--zero');
    for (let i = 0; i < REQUESTS; i++) await once(req, stream);
    server.control('--dump');
    server.control('--instr=off');
    const last = server.lastDump();
    const totals = /^(?:totals|summary):\s*(\d+)/m.exec(readFileSync(last, 'utf8'));
    if (!totals) throw new Error(`bench: no totals in ${last}`);
    return Number(totals[1]) / REQUESTS;
  } finally {
    await pool.close();
  }
}

const fmtK = (n) => `${(n / 1000).toFixed(0)}k instructions`;

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run()) process.stdout.write(`${r.metric}: svc ${Math.round(r.value)}, bare proxy ${Math.round(r.baseline ?? 0)}${r.note ? ` (${r.note})` : ''}\n`);
}
