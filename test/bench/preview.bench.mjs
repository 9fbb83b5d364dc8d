// Preview file serving by the real binary against a bare server answering the same bytes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { distBinary, load, signUpOwner, startFakeUpstream, startServer, tempDir } from './lib.mjs';

export const name = 'preview';
export const description = 'preview file serving req/s vs the same file from bare node:http';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const TARGET = 0.5;

const BARE_FILE_SERVER = `const body = require('node:fs').readFileSync(process.env.BENCH_FILE);
require('node:http').createServer((q, s) => {
  s.writeHead(200, { 'content-type': process.env.BENCH_TYPE, 'content-length': body.length }); s.end(body);
}).listen(+process.env.PORT, '127.0.0.1');`;

const FILES = [
  { path: 'index.html', type: 'text/html; charset=utf-8', content: `<!doctype html><html><head><meta charset="utf-8"><title>App</title></head><body>${'<p>A generated page with some text in it.</p>'.repeat(45)}<script src="js/app.js"></script></body></html>` },
  { path: 'js/app.js', type: 'text/javascript; charset=utf-8', content: `// bundled app\n${'export const f = (a, b) => a.map((x) => x * b).filter(Boolean);\n'.repeat(1000)}` },
];

export async function run() {
  const home = tempDir('svc-bench-preview-');
  const dbPath = join(home.dir, 'svc.db');
  let fake;
  let svc;
  try {
    fake = await startFakeUpstream();
    svc = await startServer(distBinary, ['serve'], { HOME: home.dir, PATH: '/usr/bin:/bin', SERVICE_DB_PATH: dbPath });
    const origin = `http://127.0.0.1:${svc.port}`;
    const { call } = await signUpOwner(origin);
    const account = await call('POST', '/api/app/provider-accounts', { provider: 'openai-compatible', name: 'Bench', slug: 'bench', baseUrl: fake.url, models: ['bench-model'] }, 201);
    const agent = await call('POST', '/api/app/agents', { name: 'Bench', instructions: 'Be brief.', providerAccountId: account.id, model: 'bench/bench-model' }, 201);
    await call('POST', `/api/app/agents/${agent.id}/publish`, undefined, 201);
    const { token } = await call('POST', '/api/app/access-tokens', { name: 'bench' }, 201);
    const started = await fetch(`${origin}/api/agents/${agent.id}/runs`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ inputText: 'hi' }) });
    const { runId } = await started.json();
    const appId = addApp(dbPath, runId);
    const link = await call('POST', `/api/app/apps/${appId}/preview-links`, undefined, 201);
    const base = new URL(link.url).pathname.replace(/index\.html$/, '');
    const headers = { host: new URL(link.url).host };

    const rows = [];
    for (const f of FILES) {
      const file = join(home.dir, f.path.replace('/', '_'));
      writeFileSync(file, f.content);
      const bare = await startServer(process.execPath, ['-e', BARE_FILE_SERVER], { PATH: '/usr/bin:/bin', BENCH_FILE: file, BENCH_TYPE: f.type }, '/');
      try {
        const path = `${base}${f.path}`;
        // fetch() cannot set Host; undici's own request (as load() uses) can.
        const check = await request(`${origin}${path}`, { headers });
        const text = await check.body.text();
        if (check.statusCode !== 200 || text !== f.content) throw new Error(`bench: the preview answered ${check.statusCode} for ${path}: ${text.slice(0, 200)}`);
        // Alternated, so outside load hits both sides alike.
        const sides = { svc: { rps: 0, cpu: 0, n: 0 }, bare: { rps: 0, cpu: 0, n: 0 } };
        let errors = 0;
        for (let i = 0; i < 2; i++) {
          const b = await measured(bare.child.pid, () => load(`http://127.0.0.1:${bare.port}`, path, { connections: CONNECTIONS, seconds: SECONDS }));
          const s = await measured(svc.child.pid, () => load(origin, path, { connections: CONNECTIONS, seconds: SECONDS, headers }));
          for (const [side, m] of [[sides.bare, b], [sides.svc, s]]) {
            side.rps += m.rps / 2;
            side.cpu += m.cpuS;
            side.n += m.requests;
          }
          errors += s.errors;
        }
        const label = `${f.path} (${(Buffer.byteLength(f.content) / 1024).toFixed(0)} KiB)`;
        rows.push({
          metric: `preview ${label} req/s (${CONNECTIONS} conns, 2×${SECONDS} s)`,
          value: sides.svc.rps,
          baseline: sides.bare.rps,
          target: `ratio ≥ ${TARGET}`,
          ok: sides.svc.rps / sides.bare.rps >= TARGET && errors === 0,
          ...(errors ? { note: `${errors} errors` } : {}),
        });
        // Steadier than req/s: the load generator competes for the same cores.
        const cpu = (x) => (x.cpu / x.n) * 1e6;
        rows.push({ metric: `preview ${label} server CPU µs per request`, value: cpu(sides.svc), baseline: cpu(sides.bare), note: `bare/svc ${(cpu(sides.bare) / cpu(sides.svc)).toFixed(2)}` });
      } finally {
        await bare.stop();
      }
    }
    return rows;
  } finally {
    await svc?.stop();
    await fake?.stop();
    home.remove();
  }
}

/** Adds the process's CPU seconds over a load() call. */
async function measured(pid, fn) {
  const before = cpuSeconds(pid);
  const t0 = performance.now();
  const r = await fn();
  const elapsed = (performance.now() - t0) / 1000;
  return { ...r, cpuS: cpuSeconds(pid) - before, requests: r.rps * elapsed };
}

/** From /proc; clock ticks at 100 Hz. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Written into the live server's SQLite file (WAL). */
function addApp(dbPath, runId) {
  const db = new Database(dbPath);
  try {
    const appId = 'app_bench0000000000000000';
    const { workspace_id: ws, created_at: at } = db.prepare('SELECT workspace_id, created_at FROM runs WHERE id = ?').get(runId);
    const total = FILES.reduce((n, f) => n + Buffer.byteLength(f.content), 0);
    db.transaction(() => {
      db.prepare('INSERT INTO apps (id, workspace_id, run_id, seq, title, latest_version, created_at) VALUES (?, ?, ?, 1, ?, 1, ?)').run(appId, ws, runId, 'Bench app', at);
      db.prepare('INSERT INTO app_versions (app_id, version, entry, file_count, total_bytes, created_at) VALUES (?, 1, ?, ?, ?, ?)').run(appId, 'index.html', FILES.length, total, at);
      for (const f of FILES) db.prepare('INSERT INTO app_files (app_id, version, path, size, content) VALUES (?, 1, ?, ?, ?)').run(appId, f.path, Buffer.byteLength(f.content), Buffer.from(f.content));
    })();
    return appId;
  } finally {
    db.close();
  }
}
