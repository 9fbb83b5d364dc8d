// Tests of the built dist/svc: alone in an empty directory, with a clean environment.
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const distBinary = join(repoRoot, 'dist', 'svc');

/** A no-op under `npm test`, which already built it. */
export function ensureBuilt(): void {
  const r = spawnSync(process.execPath, [join(repoRoot, 'build.mjs'), '--if-stale'], { cwd: repoRoot, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build failed:\n${r.stdout}\n${r.stderr}`);
}

export interface Sandbox {
  /** Directory holding only the copied binary. */
  dir: string;
  /** An empty HOME. */
  home: string;
  /** The copied binary. */
  bin: string;
  cleanup(): void;
}

/** dist/svc copied alone into an empty directory, with an empty HOME elsewhere. */
export function isolatedBinary(): Sandbox {
  const base = mkdtempSync(join(tmpdir(), 'svc-e2e-'));
  const dir = join(base, 'bin');
  const home = join(base, 'home');
  mkdirSync(dir);
  mkdirSync(home);
  const bin = join(dir, 'svc');
  copyFileSync(distBinary, bin);
  return { dir, home, bin, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

/** Like `env -i`: nothing from the test's own environment leaks in. */
export function cleanEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { HOME: home, PATH: '/usr/bin:/bin', ...extra };
}

export function runSync(sb: Sandbox, args: string[], env: Record<string, string> = cleanEnv(sb.home)): SpawnSyncReturns<string> {
  return spawnSync('./svc', args, { cwd: sb.dir, env, encoding: 'utf8', timeout: 60_000 });
}

/** A port that was free a moment ago (bind 0, read it, close). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', resolve);
  });
  const addr = srv.address();
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  if (addr === null || typeof addr === 'string') throw new Error('no port');
  return addr.port;
}

export interface Running {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or the signal name) once the process ends. */
  exited: Promise<number | string>;
}

export function start(sb: Sandbox, args: string[], env: Record<string, string>): Running {
  const child = spawn('./svc', args, { cwd: sb.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, output: () => out, exited };
}

/** Fails after `timeoutMs` or as soon as the process exits. */
export async function waitForStatus(run: Running, url: string, status = 200, timeoutMs = 20_000): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  let exited = false;
  void run.exited.then(() => (exited = true));
  while (Date.now() < deadline && !exited) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.status === status) return res;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} did not answer ${status} (${exited ? 'process exited' : 'timed out'}; last: ${last})\n${run.output()}`);
}

/** SIGKILLs on timeout so no process outlives a test. */
export async function stop(run: Running, timeoutMs = 15_000): Promise<number | string> {
  run.child.kill('SIGTERM');
  const timer = setTimeout(() => run.child.kill('SIGKILL'), timeoutMs);
  try {
    return await run.exited;
  } finally {
    clearTimeout(timer);
  }
}
