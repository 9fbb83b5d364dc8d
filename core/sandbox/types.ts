/** The run_code sandbox's driver contract (docs/sandbox.md). */

export type SandboxRuntime = 'node' | 'python';
export type DriverName = 'container' | 'none';

/** `network`: what it ran into; null when it ended on its own. */
export type LimitName = 'time' | 'cpu' | 'memory' | 'processes' | 'storage' | 'network';

export interface SandboxLimits {
  timeoutMs: number;
  cpuSeconds: number;
  memoryMb: number;
  maxProcesses: number;
  /** Size of /tmp and of /output (each), MiB. */
  tmpMb: number;
  network: 'none' | 'allowlist';
  /** Hosts the egress proxy admits (allowlist mode). */
  allowedHosts: string[];
  /** SERVICE_TOOL_HTTP_ALLOW_PRIVATE: also admit loopback/private addresses. */
  allowPrivate: boolean;
}

export interface RunRequest {
  code: string;
  stdin?: string | undefined;
  /** Kills the whole process tree; run() rejects with its reason. */
  signal?: AbortSignal | undefined;
}

/** At most 200 files, 5 MiB in all. */
export interface OutputFile {
  /** Relative to /output, `/`-separated. */
  path: string;
  content: Buffer;
}

export interface RunResult {
  /** 128 + N when signal N ended it, as a shell reports it. */
  exitCode: number;
  /** 64 KiB each; stderr ends naming the limit. */
  stdout: string;
  stderr: string;
  durationMs: number;
  limit: LimitName | null;
  /** Internal: not shown to the model (create_app turns them into an app). */
  files: OutputFile[];
  /** More files (or bytes) were in /output than were collected. */
  filesTruncated: boolean;
}

/** On this host; doctor reports it. */
export interface Enforcement {
  memory: 'cgroup v2' | 'cgroup v1' | 'RLIMIT_DATA' | 'not enforced';
  processes: 'cgroup v2' | 'cgroup v1' | 'RLIMIT_NPROC' | 'not enforced';
  cpu: 'RLIMIT_CPU' | 'not enforced';
  storage: 'tmpfs' | 'not enforced';
  network: 'loopback only' | 'egress proxy (allowlist)' | 'not enforced';
  /** Why a cgroup could not be used, when it could not. */
  cgroupNote?: string;
}

export interface Sandbox {
  readonly driver: DriverName;
  readonly runtime: SandboxRuntime;
  readonly limits: SandboxLimits;
  /** Runs one program. Throws SandboxUnavailable when the sandbox itself cannot start. */
  run(req: RunRequest): Promise<RunResult>;
  /** How the limits are enforced here (detects on first call). */
  enforcement(): Promise<Enforcement>;
  /** Kills every execution still running and releases the egress proxy. */
  close(): Promise<void>;
}

/** bubblewrap missing, user namespaces off, runtime not found… */
export class SandboxUnavailable extends Error {
  readonly fix: string | undefined;
  constructor(message: string, fix?: string) {
    super(message);
    this.name = 'SandboxUnavailable';
    this.fix = fix;
  }
}
