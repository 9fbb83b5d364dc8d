// Server-side render time of the run list and a 200-step run page (docs/workbench.md).
// The HTML's bytes only: the first-load budget is asserted in Chromium by test/e2e.
import { join } from 'node:path';
import { register } from '../../core/accounts/register.ts';
import { createSession } from '../../core/accounts/sessions.ts';
import { loadConfig, resolveSecrets } from '../../core/kernel/config/index.ts';
import { createCore } from '../../core/index.ts';
import { createLogger } from '../../core/kernel/log.ts';
import { migrate, openDb } from '../../core/store/index.ts';
import { createApp } from '../../daemon/app.ts';
import { accountsDeps, createServices } from '../../core/services.ts';
import { median, tempDir } from './lib.mjs';

export const name = 'workbench';
export const description = 'workbench page render: run list with 1,000 runs, run page with 200 steps';

const RUNS = 1000;
const STEPS = 200;
const SAMPLES = Number(process.env.BENCH_WORKBENCH_SAMPLES ?? 200);
const TARGET_MS = 20;

const p = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];

export async function run() {
  const home = tempDir('svc-bench-workbench-');
  const { config } = loadConfig({ HOME: home.dir, SERVICE_DB_PATH: join(home.dir, 'svc.db'), SERVICE_LOG_LEVEL: 'silent' });
  const db = await openDb(config);
  await migrate(db);
  const core = createCore({ config, secrets: resolveSecrets(config).secrets, db, log: createLogger('silent'), defaultMetrics: false, scrypt: { N: 1024, r: 8, p: 1 } });
  try {
    const deps = accountsDeps(core);
    const account = await register(deps, { email: 'bench@example.com', password: 'correct horse battery', name: 'Bench' });
    const userId = account.user.id;
    const ws = account.workspaces[0].id;
    const session = await createSession(deps, userId);
    const cookie = `service_session=${session.token}; service_csrf=${session.csrf}`;
    const t0 = Date.parse('2025-01-01T00:00:00Z');
    const iso = (ms) => new Date(ms).toISOString();
    await db.run(
      `INSERT INTO agents (id, workspace_id, owner_user_id, name, instructions, model, latest_version, created_at, updated_at) VALUES ('agt_bench0000000000000000', ?, ?, 'Bench agent', 'x', 'fake/m', 1, ?, ?)`,
      [ws, userId, iso(t0), iso(t0)],
    );
    await db.tx(async (q) => {
      for (let i = 0; i < RUNS; i++) {
        const id = `run_${String(i).padStart(20, '0')}`;
        await q.run(
          `INSERT INTO runs (id, agent_id, agent_version, workspace_id, user_id, status, input_text, output_text, durable, created_at, started_at, finished_at)
           VALUES (?, 'agt_bench0000000000000000', 1, ?, ?, 'completed', ?, 'done', 1, ?, ?, ?)`,
          [id, ws, userId, `question number ${i}: what is in the report for this week?`, iso(t0 + i * 1000), iso(t0 + i * 1000), iso(t0 + i * 1000 + 500)],
        );
      }
      const big = `run_${String(RUNS - 1).padStart(20, '0')}`;
      for (let s = 1; s <= STEPS; s++) {
        const model = s % 2 === 1;
        await q.run(
          `INSERT INTO run_steps (run_id, seq, kind, status, name, call_id, input, output, provider, model, input_tokens, output_tokens, total_tokens, started_at, finished_at)
           VALUES (?, ?, ?, 'completed', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            big, s, model ? 'model' : 'tool', model ? null : 'http_request', model ? null : `call_${s}`,
            model ? JSON.stringify([{ role: 'user', content: 'x'.repeat(200) }]) : JSON.stringify({ method: 'GET', url: `https://example.com/items/${s}` }),
            model ? JSON.stringify({ content: null, toolCalls: [{ id: `call_${s + 1}`, name: 'http_request', arguments: '{}' }] }) : `status 200\n${'item data '.repeat(30)}`,
            model ? 'openai-compatible' : null, model ? 'fake/m' : null, model ? 120 : 0, model ? 30 : 0, model ? 150 : 0, iso(t0 + s), iso(t0 + s + 1),
          ],
        );
        await q.run('INSERT INTO run_events (run_id, seq, kind, data, created_at) VALUES (?, ?, ?, ?, ?)', [big, s, 'step.completed', JSON.stringify({ seq: s }), iso(t0 + s)]);
      }
    });
    const app = createApp(core, createServices(core));
    const cursor = `${iso(t0 + 500 * 1000)}~run_${String(500).padStart(20, '0')}`;
    const pages = [
      ['run list, first page (1,000 runs)', '/runs'],
      ['run list, page at run 500 (cursor)', `/runs?before=${encodeURIComponent(cursor)}`],
      [`run page, ${STEPS} steps (latest 50 shown)`, `/runs/run_${String(RUNS - 1).padStart(20, '0')}`],
      [`run page, ${STEPS} steps, all shown`, `/runs/run_${String(RUNS - 1).padStart(20, '0')}?all=1`],
    ];
    // Besides the HTML, uncompressed.
    const first = await (await app.request('/runs', { headers: { cookie } })).text();
    let assetBytes = 0;
    for (const [, path] of first.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)) assetBytes += Buffer.byteLength(await (await app.request(path)).text());
    const rows = [];
    for (const [label, path] of pages) {
      const once = async () => {
        const t = performance.now();
        const res = await app.request(path, { headers: { cookie } });
        const body = await res.text();
        const ms = performance.now() - t;
        if (res.status !== 200) throw new Error(`workbench bench: ${path} answered ${res.status}`);
        return { ms, bytes: Buffer.byteLength(body) };
      };
      for (let i = 0; i < 30; i++) await once(); // warm-up (JIT, statement cache, assets)
      const ms = [];
      let bytes = 0;
      for (let i = 0; i < SAMPLES; i++) {
        const r = await once();
        ms.push(r.ms);
        bytes = r.bytes;
      }
      const p50 = median(ms);
      rows.push({ metric: `${label}: p50 ms`, value: p50, target: `≤ ${TARGET_MS}`, ok: p50 <= TARGET_MS, note: `p95 ${p(ms, 0.95).toFixed(1)} ms` });
      const kb = (bytes + assetBytes) / 1024;
      // The "all steps" view is the explicit opt-in past the page size budget.
      if (!path.includes('all=1')) rows.push({ metric: `${label}: first load KB`, value: kb, target: '≤ 100', ok: kb <= 100, note: `${(bytes / 1024).toFixed(0)} KB HTML + ${(assetBytes / 1024).toFixed(0)} KB assets` });
      else rows.push({ metric: `${label}: KB HTML`, value: bytes / 1024 });
    }
    return rows;
  } finally {
    await core.close();
    home.remove();
  }
}
