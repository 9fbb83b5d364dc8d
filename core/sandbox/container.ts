import { execFileSync } from 'node:child_process';
import { bwrapArgs, CODE_DIR } from './bwrap.ts';
import { detectCgroups, RunCgroups, type CgroupSupport } from './cgroups.ts';
import { classify } from './classify.ts';
import { openEgress, type EgressSession } from './egress.ts';
import { execute } from './execute.ts';
import { findProgram, rlimitArgs } from './host.ts';
import { resolveRuntime, type RuntimePlan } from './runtime.ts';
import { SandboxUnavailable, type Enforcement, type RunRequest, type RunResult, type Sandbox, type SandboxLimits, type SandboxRuntime } from './types.ts';

/** bwrap under prlimit, entered via the cgroups so every descendant is counted and killable. */

/** Joins the first N arguments' cgroups, then execs the rest. */
const JOIN_CGROUPS = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; exec "$@"';

export const INSTALL_BWRAP = 'install bubblewrap: apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora)';
export const USERNS_FIX =
  'allow unprivileged user namespaces: sysctl -w kernel.unprivileged_userns_clone=1 (older Debian), user.max_user_namespaces=10000; on Ubuntu 24.04+ also kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap';

interface Ready {
  bwrap: string;
  prlimit: string;
  disableUserns: boolean;
  cgroups: CgroupSupport;
  runtime: RuntimePlan;
  enforcement: Enforcement;
}

export interface ContainerOptions {
  /** Finds a host program (tests: a missing or broken bwrap). */
  findProgram?: (name: string) => string | undefined;
}

export function containerSandbox(runtime: SandboxRuntime, limits: SandboxLimits, pythonCmd: string, opts: ContainerOptions = {}): Sandbox {
  const live = new Set<{ kill(): void }>();
  const egress = new Set<EgressSession>();
  let ready: Promise<Ready> | undefined;
  const init = () => (ready ??= prepare(runtime, limits, pythonCmd, opts.findProgram ?? findProgram).catch((err: unknown) => {
    ready = undefined; // retried: the operator may fix it without a restart
    throw err;
  }));

  return {
    driver: 'container',
    runtime,
    limits,
    enforcement: async () => (await init()).enforcement,
    async run(req: RunRequest): Promise<RunResult> {
      const r = await init();
      const cg = r.cgroups.memory || r.cgroups.pids || r.cgroups.cpu ? new RunCgroups(r.cgroups, limits) : undefined;
      let proxy: EgressSession | undefined;
      try {
        if (limits.network === 'allowlist') {
          proxy = await openEgress({ allowedHosts: limits.allowedHosts, allowPrivate: limits.allowPrivate });
          egress.add(proxy);
        }
        const launcher = [
          r.prlimit,
          ...rlimitArgs({
            cpuSeconds: limits.cpuSeconds,
            dataBytes: r.cgroups.memory ? undefined : limits.memoryMb * 1024 * 1024,
            nproc: r.cgroups.pids ? undefined : limits.maxProcesses,
          }),
          '--',
          r.bwrap,
          ...bwrapArgs({ runtime: r.runtime, tmpBytes: limits.tmpMb * 1024 * 1024, proxySocket: proxy?.socketPath, disableUserns: r.disableUserns }),
          ...r.runtime.sandboxArgv(`${CODE_DIR}/${r.runtime.codeName}`),
        ];
        const argv = cg ? ['/bin/sh', '-c', JOIN_CGROUPS, 'sh', String(cg.procsFiles.length), ...cg.procsFiles, ...launcher] : launcher;
        const o = await execute({
          argv, env: {}, cwd: '/', code: req.code, stdin: req.stdin, timeoutMs: limits.timeoutMs, signal: req.signal, statusFd: true,
          onKill: () => cg?.killAll(), live,
        });
        if (o.aborted) throw req.signal?.reason ?? new Error('aborted');
        if (!o.started && !o.timedOut) {
          const why = o.stderr.text().trim() || `the launcher exited with status ${o.status ?? o.signal}`;
          throw new SandboxUnavailable(`the sandbox did not start: ${why}`, /namespace|userns|permission/i.test(why) ? USERNS_FIX : undefined);
        }
        const facts = {
          oomKilled: cg?.oomKilled() ?? false,
          pidsLimitHit: cg?.pidsLimitHit() ?? false,
          cpuSeconds: cg?.cpuSeconds(),
          proxyRefusals: proxy?.refusals() ?? 0,
        };
        return classify(o, facts, limits, r.enforcement);
      } finally {
        await cg?.remove();
        if (proxy) {
          egress.delete(proxy);
          await proxy.close();
        }
      }
    },
    async close() {
      for (const e of live) e.kill();
      await Promise.all([...egress].map((e) => e.close()));
    },
  };
}

async function prepare(runtime: SandboxRuntime, limits: SandboxLimits, pythonCmd: string, find: typeof findProgram): Promise<Ready> {
  const bwrap = find('bwrap');
  if (!bwrap) throw new SandboxUnavailable('bubblewrap (bwrap) is not installed', INSTALL_BWRAP);
  const prlimit = find('prlimit');
  if (!prlimit) throw new SandboxUnavailable('prlimit is not installed', 'install util-linux (apt-get install util-linux)');
  let disableUserns = false;
  try {
    const v = /(\d+)\.(\d+)/.exec(execFileSync(bwrap, ['--version'], { encoding: 'utf8', timeout: 5000 }));
    disableUserns = !!v && (Number(v[1]) > 0 || Number(v[2]) >= 8);
  } catch {}
  const cgroups = detectCgroups();
  const root = process.getuid?.() === 0;
  const enforcement: Enforcement = {
    memory: cgroups.memory ? (`cgroup v${cgroups.memory.version}` as const) : 'RLIMIT_DATA',
    // The kernel exempts root from RLIMIT_NPROC.
    processes: cgroups.pids ? (`cgroup v${cgroups.pids.version}` as const) : root ? 'not enforced' : 'RLIMIT_NPROC',
    cpu: 'RLIMIT_CPU',
    storage: 'tmpfs',
    network: limits.network === 'allowlist' ? 'egress proxy (allowlist)' : 'loopback only',
    ...(cgroups.note ? { cgroupNote: cgroups.note } : {}),
  };
  return { bwrap, prlimit, disableUserns, cgroups, runtime: await resolveRuntime(runtime, pythonCmd), enforcement };
}
