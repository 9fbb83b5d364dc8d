import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { SandboxUnavailable } from './types.ts';

/** fds: 3 the code, 4 the runner's report, 5 bwrap's status (no child-pid: never started). */

export const OUTPUT_CAP = 64 * 1024;

export interface RunnerReport {
  files: { path: string; data: string }[];
  filesTruncated: boolean;
  storageFull: boolean;
  childSignal: NodeJS.Signals | null;
}

export interface ExecSpec {
  argv: string[];
  env: Record<string, string>;
  cwd?: string | undefined;
  /** Written to fd 3 (container driver); absent: fd 3 is not opened. */
  code?: string | undefined;
  stdin?: string | undefined;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** bwrap's --json-status-fd 5 is in use. */
  statusFd?: boolean | undefined;
  /** The `none` driver: nothing else contains its tree. */
  processGroup?: boolean | undefined;
  /** Extra killing beyond the launcher's pid (the cgroups' tasks). */
  onKill?: (() => void) | undefined;
  /** The sandbox's set of running executions (its close() kills them). */
  live: Set<{ kill(): void }>;
}

export class Capped {
  private chunks: Buffer[] = [];
  kept = 0;
  total = 0;
  add(b: Buffer): void {
    this.total += b.length;
    if (this.kept >= OUTPUT_CAP) return;
    const part = b.subarray(0, OUTPUT_CAP - this.kept);
    this.chunks.push(part);
    this.kept += part.length;
  }
  /** The kept bytes as text, with a marker when more was written. */
  text(): string {
    const s = new TextDecoder('utf-8').decode(Buffer.concat(this.chunks));
    return this.total > this.kept ? `${s}\n[… output cut at ${OUTPUT_CAP} bytes: ${this.total - this.kept} more bytes not shown]` : s;
  }
}

export interface ExecOutcome {
  /** Exit status of the launched process (null when a signal ended it). */
  status: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: Capped;
  stderr: Capped;
  report: RunnerReport | undefined;
  /** bwrap reported the sandbox's child (statusFd only). */
  started: boolean;
  durationMs: number;
  /** Killed because the request's signal aborted. */
  aborted: boolean;
}

function readAll(stream: Readable | null | undefined, onData: (b: Buffer) => void): Promise<void> {
  if (!stream) return Promise.resolve();
  return new Promise((resolve) => {
    stream.on('data', onData);
    stream.on('error', () => resolve());
    stream.on('close', () => resolve());
    stream.on('end', () => resolve());
  });
}

export function execute(spec: ExecSpec): Promise<ExecOutcome> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let child: ChildProcess;
    try {
      child = spawn(spec.argv[0]!, spec.argv.slice(1), {
        env: spec.env,
        cwd: spec.cwd,
        stdio: ['pipe', 'pipe', 'pipe', spec.code === undefined ? 'ignore' : 'pipe', 'pipe', spec.statusFd ? 'pipe' : 'ignore'],
        detached: spec.processGroup === true,
      });
    } catch (err) {
      reject(new SandboxUnavailable(`cannot start ${spec.argv[0]}: ${(err as Error).message}`));
      return;
    }
    const stdout = new Capped();
    const stderr = new Capped();
    const report: Buffer[] = [];
    const status: Buffer[] = [];
    let timedOut = false;
    let aborted = false;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;

    const kill = () => {
      try {
        if (spec.processGroup && child.pid) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {}
      spec.onKill?.();
    };
    const handle = { kill };
    spec.live.add(handle);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, spec.timeoutMs);
    const onAbort = () => {
      aborted = true;
      kill();
    };
    spec.signal?.addEventListener('abort', onAbort, { once: true });

    const ignore = () => {};
    const feed = (w: Writable | null | undefined, text: string | undefined) => {
      if (!w) return;
      w.on('error', ignore); // EPIPE: the program did not read it all
      w.end(text ?? '');
    };
    feed(child.stdin, spec.stdin);
    if (spec.code !== undefined) feed(child.stdio[3] as Writable, spec.code);

    const extra = child.stdio as unknown as (Readable | Writable | null | undefined)[];
    const streams = Promise.all([
      readAll(child.stdout, (b) => stdout.add(b)),
      readAll(child.stderr, (b) => stderr.add(b)),
      readAll(extra[4] as Readable, (b) => report.push(b)),
      readAll(extra[5] as Readable | undefined, (b) => status.push(b)),
    ]);
    let spawnError: Error | undefined;
    const done = new Promise<void>((res) => {
      child.on('exit', (code, signal) => ((exited = { code, signal }), res()));
      child.on('error', (err) => {
        spawnError = err;
        if (child.pid === undefined) res(); // never started: no 'exit' follows
      });
    });

    void (async () => {
      await done;
      // Only an escaped descendant (`none` driver) keeps the streams open.
      await Promise.race([streams, new Promise((r) => setTimeout(r, 1000))]);
      if (spec.processGroup && child.pid) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {}
      }
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      spec.live.delete(handle);
      for (const s of [child.stdout, child.stderr, extra[4], extra[5]]) s?.destroy();
      if (spawnError && (spawnError as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(new SandboxUnavailable(`cannot start ${spec.argv[0]}: not found`));
        return;
      }
      resolve({
        status: exited?.code ?? null,
        signal: exited?.signal ?? null,
        timedOut,
        stdout,
        stderr,
        report: parseReport(Buffer.concat(report).toString('utf8')),
        started: /"child-pid"/.test(Buffer.concat(status).toString('utf8')),
        durationMs: Math.round(performance.now() - t0),
        aborted,
      });
    })();
  });
}

/** The runner's last line; the program may write to fd 4 too. */
function parseReport(text: string): RunnerReport | undefined {
  const lines = text.trim().split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const r = JSON.parse(lines[i]!) as RunnerReport;
      if (Array.isArray(r.files)) return r;
    } catch {}
  }
  return undefined;
}
