import type { Config } from '../kernel/config/load.ts';
import { containerSandbox, type ContainerOptions } from './container.ts';
import { noneSandbox } from './none.ts';
import type { Sandbox, SandboxLimits } from './types.ts';

export type { Enforcement, LimitName, OutputFile, RunResult, Sandbox, SandboxLimits } from './types.ts';
export { SandboxUnavailable } from './types.ts';

type SandboxConfig = Pick<
  Config,
  | 'SERVICE_SANDBOX_DRIVER' | 'SERVICE_SANDBOX_RUNTIME' | 'SERVICE_SANDBOX_PYTHON' | 'SERVICE_SANDBOX_TIMEOUT_MS'
  | 'SERVICE_SANDBOX_CPU_SECONDS' | 'SERVICE_SANDBOX_MEMORY_MB' | 'SERVICE_SANDBOX_MAX_PROCESSES' | 'SERVICE_SANDBOX_TMP_MB'
  | 'SERVICE_SANDBOX_NETWORK' | 'SERVICE_SANDBOX_ALLOWED_HOSTS' | 'SERVICE_TOOL_HTTP_ALLOW_PRIVATE'
>;

export function limitsFromConfig(c: SandboxConfig): SandboxLimits {
  return {
    timeoutMs: c.SERVICE_SANDBOX_TIMEOUT_MS,
    cpuSeconds: c.SERVICE_SANDBOX_CPU_SECONDS,
    memoryMb: c.SERVICE_SANDBOX_MEMORY_MB,
    maxProcesses: c.SERVICE_SANDBOX_MAX_PROCESSES,
    tmpMb: c.SERVICE_SANDBOX_TMP_MB,
    network: c.SERVICE_SANDBOX_NETWORK === 'allowlist' ? 'allowlist' : 'none',
    allowedHosts: [...c.SERVICE_SANDBOX_ALLOWED_HOSTS],
    allowPrivate: c.SERVICE_TOOL_HTTP_ALLOW_PRIVATE,
  };
}

/** Nothing is probed until the first run or enforcement(). */
export function createSandbox(c: SandboxConfig, opts: ContainerOptions = {}): Sandbox {
  const limits = limitsFromConfig(c);
  return c.SERVICE_SANDBOX_DRIVER === 'none'
    ? noneSandbox(c.SERVICE_SANDBOX_RUNTIME, limits, c.SERVICE_SANDBOX_PYTHON)
    : containerSandbox(c.SERVICE_SANDBOX_RUNTIME, limits, c.SERVICE_SANDBOX_PYTHON, opts);
}
