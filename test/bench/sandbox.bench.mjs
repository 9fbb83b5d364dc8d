// The sandbox figures: a trivial program's added latency, `svc __sandbox-node` start-up, and
// runs/s with one run_code call (docs/sandbox.md, "Performance").
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { distBinary, signUpOwner, startServer, tempDir } from './lib.mjs';

export const name = 'sandbox';
export const description = 'run_code: added latency of the bubblewrap sandbox vs running the program directly; runs/s through one worker';

const N = Number(process.env.BENCH_SANDBOX_N ?? 60);
const RUNS = Number(process.env.BENCH_SANDBOX_RUNS ?? 100);

export async function run() {
  const rows = [];
  for (const runtime of ['node', 'python']) {
    const l = await addedLatency(runtime);
    const target = runtime === 'node' ? '≤ 150 ms added' : undefined;
    rows.push({
      metric: `run_code trivial ${runtime} program, p50 (ms; baseline: run directly)`,
      value: l.sandbox.p50, baseline: l.direct.p50, ...(target ? { target, ok: l.sandbox.p50 - l.direct.p50 <= 150 } : {}),
      note: `added p50 ${(l.sandbox.p50 - l.direct.p50).toFixed(0)} ms, p95 ${(l.sandbox.p95 - l.direct.p95).toFixed(0)} ms; p95 ${l.sandbox.p95.toFixed(0)} vs ${l.direct.p95.toFixed(0)} ms`,
    });
  }
  const s = startup();
  rows.push({ metric: 'svc __sandbox-node runs a program, p50 (ms; baseline: node)', value: s.svc, baseline: s.node });
  const withTool = await throughput(true);
  const without = await throughput(false);
  rows.push({ metric: 'runs with one trivial run_code call, one worker (runs/s; baseline: no tool call)', value: withTool, baseline: without, note: `${RUNS} runs, --concurrency 4` });
  return rows;
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function addedLatency(runtime) {
  const { createSandbox } = await import('../../core/sandbox/index.ts');
  const { loadConfig } = await import('../../core/kernel/config/index.ts');
  const home = tempDir('svc-bench-sbx-');
  const sb = createSandbox(loadConfig({ HOME: home.dir, SERVICE_SANDBOX_RUNTIME: runtime }).config);
  const code = runtime === 'node' ? 'console.log(1)' : 'print(1)';
  const file = join(home.dir, runtime === 'node' ? 'main.js' : 'main.py');
  writeFileSync(file, code);
  const python = runtime === 'python' ? spawnSync('python3', ['-I', '-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout.trim() : undefined;
  const direct = () => {
    const t0 = performance.now();
    const r = runtime === 'node' ? spawnSync(process.execPath, [file], { encoding: 'utf8' }) : spawnSync(python, ['-I', file], { encoding: 'utf8' });
    if (r.stdout !== '1\n') throw new Error(`bench: direct run printed ${JSON.stringify(r.stdout)} ${r.stderr}`);
    return performance.now() - t0;
  };
  const boxed = async () => {
    const t0 = performance.now();
    const r = await sb.run({ code });
    if (r.stdout !== '1\n') throw new Error(`bench: sandboxed run printed ${JSON.stringify(r.stdout)} ${r.stderr}`);
    return performance.now() - t0;
  };
  try {
    for (let i = 0; i < 5; i++) (direct(), await boxed());
    const d = [];
    const b = [];
    for (let i = 0; i < N; i++) {
      d.push(direct());
      b.push(await boxed());
    }
    return { direct: { p50: pct(d, 50), p95: pct(d, 95) }, sandbox: { p50: pct(b, 50), p95: pct(b, 95) } };
  } finally {
    await sb.close();
    home.remove();
  }
}

function startup() {
  const home = tempDir('svc-bench-sbxnode-');
  const file = join(home.dir, 'main.js');
  writeFileSync(file, 'console.log(1)');
  const time = (cmd, args) => {
    const xs = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const r = spawnSync(cmd, args, { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: home.dir } });
      if (r.stdout !== '1\n') throw new Error(`bench: ${cmd} printed ${JSON.stringify(r.stdout)} ${r.stderr}`);
      xs.push(performance.now() - t0);
    }
    return pct(xs, 50);
  };
  try {
    return { svc: time(distBinary, ['__sandbox-node', file]), node: time(process.execPath, [file]) };
  } finally {
    home.remove();
  }
}

/** Asks for run_code `console.log(1)` when `tool`, then answers. */
function toolModel(tool) {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const b = JSON.parse(body || '{}');
      const answered = !tool || (b.messages ?? []).some((m) => m.role === 'tool');
      const message = answered
        ? { role: 'assistant', content: 'done' }
        : { role: 'assistant', content: null, tool_calls: [{ id: `call_${Math.random().toString(36).slice(2)}`, type: 'function', function: { name: 'run_code', arguments: JSON.stringify({ code: 'console.log(1)' }) } }] };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        id: 'chatcmpl-bench', object: 'chat.completion', created: 0, model: b.model,
        choices: [{ index: 0, message, finish_reason: answered ? 'stop' : 'tool_calls' }],
        usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
      }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}/v1`, close: () => new Promise((r) => server.close(r)) })));
}

async function throughput(tool) {
  const home = tempDir('svc-bench-sbxruns-');
  const model = await toolModel(tool);
  let svc;
  let worker;
  try {
    const env = {
      HOME: home.dir, PATH: '/usr/bin:/bin', NODE_ENV: 'test', SERVICE_LOG_LEVEL: 'warn', RATE_LIMIT_CHAT_PER_MINUTE: '1000000',
      SERVICE_EMBEDDED_WORKERS: '0', SERVICE_DB_PATH: join(home.dir, 'svc.db'),
    };
    svc = await startServer(distBinary, ['serve'], env);
    const origin = `http://127.0.0.1:${svc.port}`;
    const { call } = await signUpOwner(origin);
    const account = await call('POST', '/api/app/provider-accounts', { provider: 'openai-compatible', name: 'Bench', slug: 'bench', baseUrl: model.url, models: ['m'] }, 201);
    const agent = await call('POST', '/api/app/agents', { name: 'Bench', instructions: 'Run code.', providerAccountId: account.id, model: 'bench/m', ...(tool ? { tools: [{ type: 'run_code' }] } : {}) }, 201);
    await call('POST', `/api/app/agents/${agent.id}/publish`, undefined, 201);
    const { token } = await call('POST', '/api/app/access-tokens', { name: 'bench' }, 201);
    for (let i = 0; i < RUNS; i++) {
      const res = await fetch(`${origin}/api/agents/${agent.id}/runs`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ inputText: `run ${i}`, async: true }) });
      if (res.status !== 202) throw new Error(`bench: start answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
    worker = spawn(distBinary, ['worker', '--concurrency', '4'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    const db = new Database(join(home.dir, 'svc.db'), { readonly: true });
    try {
      const deadline = Date.now() + 300_000;
      for (;;) {
        const { n, bad } = db.prepare(`SELECT SUM(status = 'completed') AS n, SUM(status IN ('failed', 'timed_out')) AS bad FROM runs`).get();
        if (bad > 0) throw new Error(`bench: ${bad} runs failed`);
        if (n >= RUNS) break;
        if (Date.now() > deadline) throw new Error(`bench: only ${n} of ${RUNS} runs completed`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const span = db.prepare('SELECT MIN(running_since) AS a, MAX(finished_at) AS b FROM runs').get();
      return RUNS / ((Date.parse(span.b) - Date.parse(span.a)) / 1000);
    } finally {
      db.close();
    }
  } finally {
    worker?.kill('SIGKILL');
    await svc?.stop();
    await model.close();
    home.remove();
  }
}
