// GC per gateway request (promotions make scavenges slow), svc vs the bare proxy.
// From source with the binary's flags: dist/svc refuses --trace-gc in NODE_OPTIONS.
import { closeSync, openSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { repoRoot, startFakeUpstream, startServer, tempDir } from './lib.mjs';
import { once, post, setUp } from './gateway.bench.mjs';
import { V8_FLAGS } from '../../scripts/v8-flags.mjs';

export const name = 'gc';
export const description = 'garbage per gateway request at c=1: promoted bytes, scavenge pause, full GCs (svc vs a bare node proxy)';

const REQUESTS = Number(process.env.BENCH_GC_REQUESTS ?? 6000);

export async function run() {
  const home = tempDir('svc-bench-gc-');
  const pin = availableParallelism() >= 2;
  const fake = await startFakeUpstream(pin ? '1' : undefined);
  const rows = [];
  try {
    const svc = await traced('svc', [join(repoRoot, 'cli', 'main.ts'), 'serve'], { HOME: home.dir, SERVICE_DB_PATH: join(home.dir, 'svc.db') }, '/api/health', home.dir, pin);
    const bare = await traced('bare', [join(repoRoot, 'test', 'bench', 'bare-proxy.mjs'), fake.origin], {}, '/health', home.dir, pin);
    try {
      const key = await setUp(`http://127.0.0.1:${svc.port}`, fake.url);
      for (const stream of [false, true]) {
        const kind = stream ? 'streamed' : 'non-streamed';
        const s = await measure(svc, { path: '/api/v1/chat/completions', model: 'bench/bench-model', key }, stream);
        const b = await measure(bare, { path: '/api/v1/chat/completions', model: 'bench-model', key: 'unused' }, stream);
        rows.push(
          { metric: `${kind} chat: bytes promoted to old space per request (baseline: bare proxy)`, value: s.promotedPerRequest, baseline: b.promotedPerRequest },
          { metric: `${kind} chat: mean scavenge pause, ms`, value: s.meanScavengeMs, baseline: b.meanScavengeMs, note: `${s.scavenges} vs ${b.scavenges} scavenges` },
          { metric: `${kind} chat: mark-compacts per 10,000 requests`, value: s.markCompactsPer10k, baseline: b.markCompactsPer10k },
        );
      }
    } finally {
      await svc.stop();
      await bare.stop();
    }
  } finally {
    await fake.stop();
    home.remove();
  }
  return rows;
}

/** Its stdout, the trace, goes to a file. */
async function traced(label, args, env, healthPath, dir, pin) {
  const log = join(dir, `${label}-gc.log`);
  const fd = openSync(log, 'w');
  const argv = [...V8_FLAGS, '--trace-gc', '--trace-gc-nvp', ...args];
  const [cmd, cmdArgs] = pin ? ['taskset', ['-c', '0', process.execPath, ...argv]] : [process.execPath, argv];
  try {
    const s = await startServer(cmd, cmdArgs, { PATH: '/usr/bin:/bin', ...env, SERVICE_LOG_LEVEL: 'info' }, healthPath, 20_000, { stdout: fd });
    return { ...s, log };
  } finally {
    closeSync(fd); // the child has its own copy
  }
}

async function measure(server, t, stream) {
  const pool = new Pool(`http://127.0.0.1:${server.port}`, { connections: 1 });
  const req = { pool, path: t.path, ...post(t, stream) };
  try {
    for (let i = 0; i < 1000; i++) await once(req, stream);
    const from = readFileSync(server.log, 'utf8').length;
    for (let i = 0; i < REQUESTS; i++) await once(req, stream);
    await new Promise((r) => setTimeout(r, 50));
    const lines = readFileSync(server.log, 'utf8').slice(from).split('\n');
    const scav = lines.filter((l) => / gc=s /.test(l));
    const field = (l, k) => Number(new RegExp(` ${k}=([0-9.]+)`).exec(l)?.[1] ?? 0);
    const promoted = scav.reduce((a, l) => a + field(l, 'promoted'), 0);
    return {
      scavenges: scav.length,
      promotedPerRequest: promoted / REQUESTS,
      meanScavengeMs: scav.length ? scav.reduce((a, l) => a + field(l, 'pause'), 0) / scav.length : 0,
      markCompactsPer10k: (lines.filter((l) => / gc=(mc|mmc) /.test(l)).length * 10_000) / REQUESTS,
    };
  } finally {
    await pool.close();
  }
}
