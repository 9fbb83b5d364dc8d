import { constants } from 'node:os';
import type { ExecOutcome } from './execute.ts';
import type { Enforcement, LimitName, RunResult, SandboxLimits } from './types.ts';

/** Kernel facts first; under rlimits the program's error message is the evidence. */

export interface Facts {
  oomKilled: boolean;
  pidsLimitHit: boolean;
  cpuSeconds: number | undefined;
  /** Requests the egress proxy refused during the run. */
  proxyRefusals: number;
}

const MEMORY_ERRORS = /heap out of memory|Allocation failed|MemoryError|Cannot allocate memory|ENOMEM|allocation failed/i;
const FORK_ERRORS = /EAGAIN|Resource temporarily unavailable|BlockingIOError|uv_thread_create|Cannot create thread/i;
const STORAGE_ERRORS = /ENOSPC|No space left on device/i;
const NETWORK_ERRORS = /ENETUNREACH|Network is unreachable|EAI_AGAIN|ENOTFOUND|Temporary failure in name resolution|Name or service not known|ECONNREFUSED|Connection refused|getaddrinfo/i;

const signalName = (n: number): string | undefined => Object.entries(constants.signals).find(([, v]) => v === n)?.[0];

export function classify(o: ExecOutcome, facts: Facts, limits: SandboxLimits, enf: Enforcement): RunResult {
  // A signal N arrives as 128 + N, like a shell's.
  let exitCode = o.status ?? 128 + (o.signal ? constants.signals[o.signal] : 0);
  let signal = o.report?.childSignal ?? (exitCode > 128 && exitCode <= 128 + 64 ? signalName(exitCode - 128) : undefined);
  if (o.signal) {
    signal = o.signal;
    exitCode = 128 + constants.signals[o.signal];
  }
  const stderrText = o.stderr.text();
  const failed = exitCode !== 0 || o.timedOut;
  let limit: LimitName | null = null;
  if (failed) {
    // A fork bomb also hits memory; the refused fork is the cause.
    if (facts.pidsLimitHit || (enf.processes === 'RLIMIT_NPROC' && FORK_ERRORS.test(stderrText))) limit = 'processes';
    else if (facts.oomKilled || (enf.memory === 'RLIMIT_DATA' && MEMORY_ERRORS.test(stderrText))) limit = 'memory';
    else if (signal === 'SIGXCPU' || (signal === 'SIGKILL' && !o.timedOut && (facts.cpuSeconds ?? 0) >= limits.cpuSeconds)) limit = 'cpu';
    else if (o.report?.storageFull || STORAGE_ERRORS.test(stderrText)) limit = 'storage';
    else if (o.timedOut) limit = 'time';
    else if (facts.proxyRefusals > 0 || NETWORK_ERRORS.test(stderrText)) limit = 'network';
  }
  const note = limit ? `\n[sandbox] ${NOTES[limit](limits)}` : signal && failed ? `\n[sandbox] the program was ended by ${signal}` : '';
  return {
    exitCode,
    stdout: o.stdout.text(),
    stderr: stderrText + note,
    durationMs: o.durationMs,
    limit,
    files: (o.report?.files ?? []).map((f) => ({ path: f.path, content: Buffer.from(f.data, 'base64') })),
    filesTruncated: o.report?.filesTruncated ?? false,
  };
}

const NOTES: Record<LimitName, (l: SandboxLimits) => string> = {
  time: (l) => `stopped: the wall-clock limit of ${l.timeoutMs} ms was reached; every process was killed`,
  cpu: (l) => `stopped: the CPU-time limit of ${l.cpuSeconds} s per process was reached`,
  memory: (l) => `stopped: the memory limit of ${l.memoryMb} MiB was reached`,
  processes: (l) => `stopped: the limit of ${l.maxProcesses} processes and threads was reached`,
  storage: (l) => `stopped: the ${l.tmpMb} MiB of storage in /tmp or /output are full`,
  network: (l) =>
    l.network === 'allowlist'
      ? `network: only HTTP(S) through the egress proxy to ${l.allowedHosts.join(', ')} is allowed`
      : 'network: the sandbox has no network access (only its own loopback)',
};
