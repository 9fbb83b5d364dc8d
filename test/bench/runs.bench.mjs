// The run API figures through the real binary, set up through the real API so every check runs:
// in-request run overhead against the fake directly, and the read of a 50-step run.
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import { distBinary, repoRoot, startServer, tempDir, setUpAgent, startFakeUpstream } from './lib.mjs';

export const name = 'runs';
export const description = 'run API: in-request one-step run overhead over the upstream call; run read with 50 steps';

const N = Number(process.env.BENCH_RUN_REQUESTS ?? 2000);
const READS = Number(process.env.BENCH_RUN_READS ?? 3000);

export async function run() {
  const home = tempDir('svc-bench-runs-');
  const dbPath = join(home.dir, 'svc.db');
  let fake;
  let svc;
  try {
    fake = await startFakeUpstream();
    // BENCH_RUNS_SOURCE=1 runs cli/main.ts instead of dist/svc (readable names in a profile).
    const serve = process.env.BENCH_RUNS_SOURCE === '1' ? [process.execPath, join(repoRoot, 'cli', 'main.ts'), 'serve'] : [distBinary, 'serve'];
    svc = await startServer(serve[0], serve.slice(1), {
      HOME: home.dir, PATH: '/usr/bin:/bin', SERVICE_DB_PATH: dbPath, RATE_LIMIT_CHAT_PER_MINUTE: '1000000',
      // BENCH_RUNS_NODE_OPTIONS profiles the server, e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof'.
      ...(process.env.BENCH_RUNS_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_RUNS_NODE_OPTIONS } : {}),
    });
    const origin = `http://127.0.0.1:${svc.port}`;
    const { token, agentId } = await setUpAgent(origin, fake.url);

    const start = { pool: new Pool(origin, { connections: 1 }), path: `/api/agents/${agentId}/runs`, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ inputText: 'Say hello in one short sentence.' }), want: 201 };
    const direct = { pool: new Pool(fake.origin, { connections: 1 }), path: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'bench-model', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hello in one short sentence.' }] }), want: 200 };
    const samples = [[], []];
    let runId;
    const warmup = Math.ceil(N / 10);
    for (let i = 0; i < warmup + N; i++) {
      for (const [k, t] of [start, direct].entries()) {
        const { ms, body } = await once(t, 'POST');
        if (i >= warmup) samples[k].push(ms);
        if (k === 0) {
          const b = JSON.parse(body);
          if (b.status !== 'completed') throw new Error(`bench: run ended ${b.status}: ${body}`);
          runId = b.runId;
        }
      }
    }
    const runP = percentiles(samples[0]);
    const upP = percentiles(samples[1]);

    const fiftyId = addSteps(dbPath, runId, 50);
    const read = { pool: start.pool, path: `/api/agents/${agentId}/runs/${fiftyId}`, headers: { authorization: `Bearer ${token}` }, want: 200 };
    const first = JSON.parse((await once(read, 'GET')).body);
    if (first.steps.length !== 50) throw new Error(`bench: the read returned ${first.steps.length} steps`);
    const reads = [];
    for (let i = 0; i < Math.ceil(READS / 10) + READS; i++) {
      const { ms } = await once(read, 'GET');
      if (i >= READS / 10) reads.push(ms);
    }
    const readP = percentiles(reads);
    await Promise.all([start.pool.close(), direct.pool.close()]);

    const overhead50 = runP.p50 - upP.p50;
    return [
      row('in-request run p50, one model step (ms; baseline: the upstream call direct)', runP.p50, upP.p50, 'overhead ≤ 2 ms', overhead50 <= 2, `overhead ${overhead50.toFixed(2)} ms`),
      row('in-request run p99, one model step (ms)', runP.p99, upP.p99, '', undefined, `overhead ${(runP.p99 - upP.p99).toFixed(2)} ms`),
      row('run read p50, 50 steps (ms)', readP.p50, undefined, '≤ 1 ms', readP.p50 <= 1, `${JSON.stringify(first).length} bytes`),
      row('run read p99, 50 steps (ms)', readP.p99, undefined, '', undefined),
    ];
  } finally {
    await svc?.stop();
    await fake?.stop();
    home.remove();
  }
}

function row(metric, value, baseline, target, ok, note) {
  return { metric, value, ...(baseline === undefined ? {} : { baseline }), ...(target ? { target } : {}), ...(ok === undefined ? {} : { ok }), ...(note ? { note } : {}) };
}

async function once(t, method) {
  const t0 = performance.now();
  const res = await t.pool.request({ method, path: t.path, headers: t.headers, ...(t.body ? { body: t.body } : {}) });
  const body = await res.body.text();
  const ms = performance.now() - t0;
  if (res.statusCode !== t.want) throw new Error(`bench: ${method} ${t.path} answered ${res.statusCode}: ${body}`);
  return { ms, body };
}

function percentiles(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

/** Realistic steps written into the live server's SQLite file (WAL). */
function addSteps(dbPath, runId, n) {
  const db = new Database(dbPath);
  try {
    const id = `run_bench${'0'.repeat(11)}`;
    const cols = db.prepare('SELECT * FROM runs WHERE id = ?').get(runId);
    const names = Object.keys(cols);
    db.prepare(`INSERT INTO runs (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`).run(...names.map((k) => (k === 'id' ? id : cols[k])));
    const step = db.prepare(`INSERT INTO run_steps (run_id, seq, kind, status, name, call_id, input, output, provider, model,
      input_tokens, cached_tokens, output_tokens, reasoning_tokens, total_tokens, started_at, finished_at) VALUES (?, ?, ?, 'completed', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const event = db.prepare('INSERT INTO run_events (run_id, seq, kind, data, created_at) VALUES (?, ?, ?, ?, ?)');
    const at = cols.created_at;
    db.transaction(() => {
      let ev = 0;
      for (let seq = 1; seq <= n; seq++) {
        const call = `call_${Math.ceil(seq / 2)}`;
        if (seq % 2 === 1) {
          const args = JSON.stringify({ method: 'GET', url: `https://api.example.com/items/${seq}` });
          const out = JSON.stringify({ content: null, tool_calls: [{ id: call, type: 'function', function: { name: 'http_request', arguments: args } }] });
          step.run(id, seq, 'model', 'openai-compatible/bench-model', null, JSON.stringify({ messages: seq + 1 }), out, 'openai-compatible', 'bench/bench-model', 500 + seq * 40, 200, 30, 10, 530 + seq * 40, at, at);
        } else {
          step.run(id, seq, 'tool', 'http_request', call, JSON.stringify({ method: 'GET', url: `https://api.example.com/items/${seq}` }), `HTTP 200 OK\ncontent-type: application/json\n\n${JSON.stringify({ id: seq, items: Array.from({ length: 12 }, (_, i) => ({ i, name: `item ${i}`, tags: ['a', 'b'] })) })}`, null, null, 0, 0, 0, 0, 0, at, at);
        }
        event.run(id, ++ev, 'step.started', JSON.stringify({ seq, kind: seq % 2 ? 'model' : 'tool' }), at);
        event.run(id, ++ev, 'step.completed', JSON.stringify({ seq, kind: seq % 2 ? 'model' : 'tool' }), at);
      }
    })();
    return id;
  } finally {
    db.close();
  }
}

