import type { Config } from '../kernel/config/index.ts';
import { createSandbox, SandboxUnavailable, type Enforcement } from '../sandbox/index.ts';
import type { ContainerOptions } from '../sandbox/container.ts';
import type { Finding } from './types.ts';

const PROGRAM = { node: "console.log('sandbox ok')", python: "print('sandbox ok')" } as const;
const CGROUP_FIX = 'run svc as root, or give it a cgroup it may manage (systemd: Delegate=yes on the unit; cgroup v2 needs memory and pids in the parent\'s cgroup.subtree_control)';

/** Runs a one-line program; names each limit that falls back. */
export async function checkSandbox(config: Config, opts: ContainerOptions = {}): Promise<Finding[]> {
  const sb = createSandbox(config, opts);
  const name = `${config.SERVICE_SANDBOX_DRIVER} driver, ${config.SERVICE_SANDBOX_RUNTIME}`;
  const findings: Finding[] = [];
  try {
    const enf = await sb.enforcement();
    const r = await sb.run({ code: PROGRAM[config.SERVICE_SANDBOX_RUNTIME] });
    if (r.exitCode !== 0 || r.stdout.trim() !== 'sandbox ok') {
      return [{
        check: 'sandbox', status: 'fail',
        message: `${name}: the test program failed (exit ${r.exitCode}${r.limit ? `, limit ${r.limit}` : ''}): ${r.stderr.trim().slice(0, 500)}`,
        fix: r.limit === 'memory' ? 'raise SERVICE_SANDBOX_MEMORY_MB' : r.limit === 'processes' ? 'raise SERVICE_SANDBOX_MAX_PROCESSES' : 'check the message above; `svc doctor --json` shows it whole',
      }];
    }
    findings.push({ check: 'sandbox', status: 'ok', message: `${name}: a one-line program ran in ${r.durationMs} ms (${describe(enf)})` });
    if (config.SERVICE_SANDBOX_DRIVER === 'none') {
      findings.push({ check: 'sandbox', status: 'warn', message: 'SERVICE_SANDBOX_DRIVER=none runs model-written code unconfined, as this user', fix: 'unset SERVICE_SANDBOX_DRIVER (container is the default) outside development' });
      return findings;
    }
    const why = enf.cgroupNote ? ` (${enf.cgroupNote})` : '';
    if (enf.memory === 'RLIMIT_DATA') {
      findings.push({ check: 'sandbox.memory', status: 'warn', message: `no memory cgroup could be made${why}: SERVICE_SANDBOX_MEMORY_MB falls back to RLIMIT_DATA, per process`, fix: CGROUP_FIX });
    }
    if (enf.processes !== 'cgroup v1' && enf.processes !== 'cgroup v2') {
      findings.push({
        check: 'sandbox.processes', status: enf.processes === 'not enforced' ? 'fail' : 'warn',
        message: enf.processes === 'not enforced'
          ? `no pids cgroup could be made${why} and root is exempt from RLIMIT_NPROC: SERVICE_SANDBOX_MAX_PROCESSES is not enforced`
          : `no pids cgroup could be made${why}: SERVICE_SANDBOX_MAX_PROCESSES falls back to RLIMIT_NPROC`,
        fix: CGROUP_FIX,
      });
    }
    return findings;
  } catch (err) {
    if (!(err instanceof SandboxUnavailable)) throw err;
    return [{ check: 'sandbox', status: 'fail', message: `${name}: ${err.message}`, fix: err.fix ?? 'see docs/sandbox.md' }];
  } finally {
    await sb.close();
  }
}

function describe(e: Enforcement): string {
  return `memory: ${e.memory}, processes: ${e.processes}, cpu: ${e.cpu}, storage: ${e.storage}, network: ${e.network}`;
}
