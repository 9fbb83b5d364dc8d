// Shared pieces of the fault tests: the built dist/svc started as real processes (`svc serve`,
// `svc worker`) on one store, killable with SIGKILL; setup through the real HTTP API; a fake model
// in this process that counts calls per (run input, step); direct reads of the store for the
// final accounting (reading runs over HTTP would trigger abandonment and cost minutes at N=1000).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { distBinary, ensureBuilt, freePort } from '../helpers/binary.ts';
import { fakeOpenAi, type FakeUpstream } from '../helpers/fake-upstream.ts';

/** SVC_FAULT_FULL=1: the sizes (1,000 runs, 500 starts, 10,000 jobs); default: CI sizes. */
export const FULL = process.env.SVC_FAULT_FULL === '1';
export const size = (ci: number, full: number) => (FULL ? full : ci);

export interface Proc {
  name: string;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | string>;
  alive(): boolean;
  kill9(): Promise<void>;
  /** SIGTERM, then SIGKILL after `ms`. */
  stop(ms?: number): Promise<void>;
}

export function spawnProc(name: string, cmd: string, args: string[], env: Record<string, string>): Proc {
  const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  // Keep the tail only: thousands of log lines per worker otherwise.
  const add = (d: Buffer) => {
    out += d.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout!.on('data', add);
  child.stderr!.on('data', add);
  let done = false;
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, sig) => ((done = true), resolve(code ?? sig ?? -1))));
  return {
    name, child, exited,
    output: () => out,
    alive: () => !done,
    async kill9() {
      if (done) return;
      child.kill('SIGKILL');
      await exited;
    },
    async stop(ms = 10_000) {
      if (done) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), ms);
      await exited;
      clearTimeout(t);
    },
  };
}

export interface Cluster {
  home: string;
  dbPath: string;
  env: Record<string, string>;
  procs: Set<Proc>;
  serve(extra?: Record<string, string>): Promise<{ proc: Proc; origin: string }>;
  worker(concurrency: number, extra?: Record<string, string>): Proc;
  /** Kills every process still running (SIGKILL) and removes the temp dir. */
  close(): Promise<void>;
}

/** A temp HOME and store; processes started from it share one store (SQLite file or `databaseUrl`). */
export function cluster(o: { databaseUrl?: string; env?: Record<string, string> } = {}): Cluster {
  ensureBuilt();
  const home = mkdtempSync(join(tmpdir(), 'svc-fault-'));
  const dbPath = join(home, 'svc.db');
  const env: Record<string, string> = {
    HOME: home, PATH: '/usr/bin:/bin', NODE_ENV: 'test', SERVICE_LOG_LEVEL: 'warn',
    RATE_LIMIT_CHAT_PER_MINUTE: '1000000', SERVICE_JOB_LEASE_MS: '1000',
    SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', // the fake upstream is on loopback
    ...(o.databaseUrl ? { SERVICE_STORE: 'postgres', DATABASE_URL: o.databaseUrl } : { SERVICE_DB_PATH: dbPath }),
    ...o.env,
  };
  const procs = new Set<Proc>();
  const track = (p: Proc) => {
    procs.add(p);
    void p.exited.then(() => procs.delete(p));
    return p;
  };
  return {
    home, dbPath, env, procs,
    async serve(extra = {}) {
      const port = await freePort();
      const proc = track(spawnProc('serve', distBinary, ['serve'], { ...env, PORT: String(port), ...extra }));
      const origin = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 30_000;
      for (;;) {
        if (!proc.alive()) throw new Error(`svc serve exited:\n${proc.output()}`);
        try {
          const r = await fetch(`${origin}/api/health`, { signal: AbortSignal.timeout(2000) });
          await r.arrayBuffer();
          if (r.status === 200) break;
        } catch {}
        if (Date.now() > deadline) throw new Error(`svc serve not ready:\n${proc.output()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return { proc, origin };
    },
    worker(concurrency, extra = {}) {
      return track(spawnProc('worker', distBinary, ['worker', '--concurrency', String(concurrency), '--stop-timeout', '2000'], { ...env, ...extra }));
    },
    async close() {
      await Promise.all([...procs].map((p) => p.kill9()));
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export interface Api {
  token: string;
  agentId: string;
  /** POST an async start; returns the status, the body and the Retry-After header. */
  startAsync(inputText: string, timeoutMs?: number): Promise<{ status: number; body: any; retryAfter: string | null; ms: number }>;
}

/** Owner sign-up, an openai-compatible account on the fake, a published agent, an access token. */
export async function setUp(origin: string, fakeUrl: string, agentOver: Record<string, unknown> = {}): Promise<Api> {
  const reg = await fetch(`${origin}/api/auth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'fault@example.com', password: 'correct horse battery staple', name: 'Fault' }),
  });
  if (reg.status !== 201) throw new Error(`register answered ${reg.status}: ${await reg.text()}`);
  const jar = Object.fromEntries(reg.headers.getSetCookie().map((c) => c.split(';', 1)[0]!.split('=') as [string, string]));
  const session = { cookie: `service_session=${jar.service_session}; service_csrf=${jar.service_csrf}`, 'x-csrf-token': decodeURIComponent(jar.service_csrf!) };
  const call = async (method: string, path: string, body: unknown, want: number) => {
    const r = await fetch(`${origin}${path}`, { method, headers: { 'content-type': 'application/json', ...session }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await r.text();
    if (r.status !== want) throw new Error(`${method} ${path} answered ${r.status}: ${text}`);
    return JSON.parse(text);
  };
  const account = await call('POST', '/api/app/provider-accounts', { provider: 'openai-compatible', name: 'Fake', slug: 'fake', baseUrl: fakeUrl, models: ['m'] }, 201);
  const agent = await call('POST', '/api/app/agents', { name: 'Fault', instructions: 'Be brief.', providerAccountId: account.id, model: 'fake/m', ...agentOver }, 201);
  await call('POST', `/api/app/agents/${agent.id}/publish`, undefined, 201);
  const { token } = await call('POST', '/api/app/access-tokens', { name: 'fault' }, 201);
  return {
    token, agentId: agent.id,
    startAsync: (inputText, timeoutMs = 30_000) => startAsync(origin, token, agent.id, inputText, timeoutMs),
  };
}

export async function startAsync(origin: string, token: string, agentId: string, inputText: string, timeoutMs = 30_000) {
  const t0 = performance.now();
  const r = await fetch(`${origin}/api/agents/${agentId}/runs`, {
    method: 'POST', signal: AbortSignal.timeout(timeoutMs),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ inputText, async: true }),
  });
  const text = await r.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: r.status, body, retryAfter: r.headers.get('retry-after'), ms: performance.now() - t0 };
}

/** The fake model in this process: answers after `latencyMs`; calls counted per (input, step). */
export async function countingFake(latencyMs: number): Promise<FakeUpstream & { callsPer(): Map<string, number>; inflight(): number }> {
  const up = await fakeOpenAi({ record: true });
  up.script({ text: 'done', latencyMs, usage: { input: 3, output: 1 } });
  const closed = new WeakSet<object>();
  let hooked = 0;
  return Object.assign(up, {
    /** Requests received and not yet answered (or dropped). */
    inflight() {
      for (; hooked < up.requests.length; hooked++) {
        const r = up.requests[hooked]!;
        void r.closed.then(() => closed.add(r));
      }
      return up.requests.filter((r) => !closed.has(r)).length;
    },
    callsPer() {
      const m = new Map<string, number>();
      for (const r of up.requests) {
        if (!r.path.endsWith('/chat/completions')) continue;
        const msgs = (r.body?.messages ?? []) as { role: string; content: string }[];
        const input = msgs.find((x) => x.role === 'user')?.content ?? '?';
        // Step n of a run sends 2 + 2(n-1) messages (system, user, then each exchange).
        const key = `${input}#${msgs.length}`;
        m.set(key, (m.get(key) ?? 0) + 1);
      }
      return m;
    },
  });
}

/** Runs `fn` over `items` with at most `n` in flight. */
export async function pool<T, R>(items: T[], n: number, fn: (x: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  }));
  return out;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function until(cond: () => boolean | Promise<boolean>, what: string, ms: number, every = 100): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(every);
  }
}
