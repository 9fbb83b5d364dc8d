// Shared by the benchmarks; one load generator for every figure, so ratios compare like with like.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const distBinary = join(repoRoot, 'dist', 'svc');

/** The baseline: the same JSON as svc's /api/health. */
export const BARE_SERVER = `require('node:http').createServer((q, s) => {
  s.writeHead(200, { 'content-type': 'application/json' }); s.end('{"status":"ok"}');
}).listen(+process.env.PORT, '127.0.0.1');`;

export async function freePort() {
  const srv = createServer();
  await new Promise((resolve, reject) => srv.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = srv.address();
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** A tool a section needs, such as taskset or valgrind. */
export function hasCommand(cmd, args) {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Also returns ms from spawn to the first 200, polled every 2 ms so it is not quantised. */
export async function startServer(cmd, args, env, path = '/api/health', timeoutMs = 20_000, { stdout = 'ignore' } = {}) {
  const port = await freePort();
  const t0 = performance.now();
  // The fake upstream is on loopback: allowed as a LAN server would be.
  const child = spawn(cmd, args, { env: { SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', ...env, PORT: String(port) }, stdio: ['ignore', stdout, 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  let exited = false;
  const exit = new Promise((resolve) => child.once('exit', (code, signal) => ((exited = true), resolve(code ?? signal))));
  const url = `http://127.0.0.1:${port}${path}`;
  while (!exited && performance.now() - t0 < timeoutMs) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) {
        const ms = performance.now() - t0;
        return { child, port, ms, stop: () => stopProcess(child, exit) };
      }
    } catch {}
    await new Promise((r) => setTimeout(r, 2));
  }
  child.kill('SIGKILL');
  throw new Error(`${cmd} ${args.join(' ')}: no 200 on ${path} (${exited ? 'exited' : 'timed out'})\n${stderr}`);
}

async function stopProcess(child, exit) {
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const code = await exit;
  clearTimeout(timer);
  return code;
}

/** From /proc (Linux). */
export function rssMB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) / 1024;
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Keep-alive connections back to back; req/s of 200s, any other status an error. */
export async function load(origin, path, { connections = 16, seconds = 5, warmupSeconds = 1, method = 'GET', headers, body } = {}) {
  const pool = new Pool(origin, { connections, pipelining: 1 });
  const runFor = async (secs) => {
    const until = performance.now() + secs * 1000;
    let ok = 0;
    let errors = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < until) {
          try {
            const res = await pool.request({ method, path, headers, body });
            await res.body.dump();
            if (res.statusCode === 200) ok++;
            else errors++;
          } catch {
            errors++;
          }
        }
      }),
    );
    return { ok, errors };
  };
  try {
    if (warmupSeconds > 0) await runFor(warmupSeconds);
    const t0 = performance.now();
    const { ok, errors } = await runFor(seconds);
    const elapsed = (performance.now() - t0) / 1000;
    return { rps: ok / elapsed, errors };
  } finally {
    await pool.close();
  }
}

/** In its own process, pinned when `core` is given. */
export async function startFakeUpstream(core, env = {}) {
  const { createInterface } = await import('node:readline');
  const script = join(repoRoot, 'test', 'helpers', 'fake-upstream-cli.ts');
  const [cmd, args] = core === undefined ? [process.execPath, [script, 'openai']] : ['taskset', ['-c', core, process.execPath, script, 'openai']];
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const exit = new Promise((resolve) => child.once('exit', resolve));
  const line = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', (l) => (rl.close(), resolve(l)));
    child.once('exit', (code) => reject(new Error(`bench: fake upstream exited (${code})`)));
  });
  const { url, origin } = JSON.parse(line);
  return {
    child,
    url,
    origin,
    async stop() {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exit;
      clearTimeout(t);
    },
  };
}

/** Through the real API. */
export async function signUpOwner(origin) {
  const reg = await fetch(`${origin}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: 'correct horse battery staple', name: 'Bench' }),
  });
  if (reg.status !== 201) throw new Error(`bench: register answered ${reg.status}: ${await reg.text()}`);
  const { user } = await reg.clone().json();
  const jar = Object.fromEntries(reg.headers.getSetCookie().map((c) => c.split(';', 1)[0].split('=')));
  const session = { cookie: `service_session=${jar.service_session}; service_csrf=${jar.service_csrf}`, 'x-csrf-token': decodeURIComponent(jar.service_csrf) };
  const call = async (method, path, body, want) => {
    const r = await fetch(`${origin}${path}`, { method, headers: { 'content-type': 'application/json', ...session }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await r.text();
    if (r.status !== want) throw new Error(`bench: ${method} ${path} answered ${r.status}: ${text}`);
    return JSON.parse(text);
  };
  /** For /api/admin/metrics. */
  const text = async (path) => {
    const r = await fetch(`${origin}${path}`, { headers: session });
    const body = await r.text();
    if (r.status !== 200) throw new Error(`bench: GET ${path} answered ${r.status}: ${body}`);
    return body;
  };
  return { user, call, text };
}

/** Owner, an openai-compatible account on the fake, a published agent, an access token. */
export async function setUpAgent(origin, fakeUrl) {
  const { call } = await signUpOwner(origin);
  const account = await call('POST', '/api/app/provider-accounts', { provider: 'openai-compatible', name: 'Bench', slug: 'bench', baseUrl: fakeUrl, models: ['bench-model'] }, 201);
  const agent = await call('POST', '/api/app/agents', { name: 'Bench', instructions: 'Be brief.', providerAccountId: account.id, model: 'bench/bench-model' }, 201);
  await call('POST', `/api/app/agents/${agent.id}/publish`, undefined, 201);
  const { token } = await call('POST', '/api/app/access-tokens', { name: 'bench' }, 201);
  return { token, agentId: agent.id };
}
