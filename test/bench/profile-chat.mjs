// Where svc's time goes, not a section: `node test/bench/profile-chat.mjs [plain|stream] [N]`.
// Writes a .cpuprofile to $PROFILE_DIR (default /tmp/svc-prof).
import { readdirSync, readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { load, repoRoot, startFakeUpstream, startServer, tempDir } from './lib.mjs';
import { once, post, setUp } from './gateway.bench.mjs';
import { V8_FLAGS } from '../../scripts/v8-flags.mjs';

const stream = process.argv[2] === 'stream';
const N = Number(process.argv[3] ?? 20000);
const dir = process.env.PROFILE_DIR ?? '/tmp/svc-prof';
mkdirSync(dir, { recursive: true });
const home = tempDir('svc-prof-');
// PROFILE_PACED=1: events 1 ms apart, one per read, as models send them.
const fake = await startFakeUpstream('1', process.env.PROFILE_PACED === '1' ? { FAKE_CHUNK_DELAY_MS: '1' } : {});
const svc = await startServer('taskset', ['-c', '0', process.execPath, ...V8_FLAGS, '--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${dir}`, join(repoRoot, 'cli', 'main.ts'), 'serve'], { PATH: '/usr/bin:/bin', HOME: home.dir, SERVICE_DB_PATH: join(home.dir, 'svc.db') });
const key = await setUp(`http://127.0.0.1:${svc.port}`, fake.url);
const pool = new Pool(`http://127.0.0.1:${svc.port}`, { connections: 1 });
const req = { pool, path: '/api/v1/chat/completions', ...post({ model: 'bench/bench-model', key }, stream) };
const before = new Set(readdirSync(dir));
// PROFILE_CONNECTIONS=32: under load for N/1000 s; per-request figures are then approximate.
const conns = Number(process.env.PROFILE_CONNECTIONS ?? 1);
let served = N;
if (conns > 1) {
  const r = await load(`http://127.0.0.1:${svc.port}`, req.path, { connections: conns, seconds: N / 1000, method: req.method, headers: req.headers, body: req.body });
  served = Math.round(r.rps * (N / 1000 + 1));
} else for (let i = 0; i < N; i++) await once(req, stream);
await pool.close();
await svc.stop();
await fake.stop();
home.remove();
const file = readdirSync(dir).find((f) => !before.has(f));
const prof = JSON.parse(readFileSync(join(dir, file), 'utf8'));
const self = new Map();
const dt = prof.timeDeltas;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
for (let i = 0; i < prof.samples.length; i++) {
  const n = byId.get(prof.samples[i]);
  const cf = n.callFrame;
  const k = `${cf.functionName || '(anon)'} ${cf.url.replace(/^.*\/(node_modules\/)?/, '')}:${cf.lineNumber + 1}`;
  self.set(k, (self.get(k) ?? 0) + (dt[i] ?? 0));
}
// Self time per request, idle excluded.
self.delete('(idle) :0');
const total = [...self.values()].reduce((a, b) => a + b, 0);
console.log(`busy: ${(total / served).toFixed(1)} µs per request (${served} requests)`);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 45))) console.log(`${(v / served).toFixed(2).padStart(7)} µs  ${k}`);
console.log(`profile: ${join(dir, file)}`);
