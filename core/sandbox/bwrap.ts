import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import type { RuntimePlan } from './runtime.ts';

/** The bubblewrap command line of one execution (docs/sandbox.md, "What is isolated"). */

/** Symlinks (merged /usr) stay symlinks. */
const LIB_DIRS = ['/usr/lib', '/usr/lib64', '/usr/lib32', '/usr/libx32', '/lib', '/lib64', '/lib32', '/libx32'];
/** Bound only in allowlist mode. */
const CA_DIRS = ['/etc/ssl/certs', '/usr/share/ca-certificates', '/etc/pki/tls/certs', '/etc/ca-certificates'];

export const CODE_DIR = '/sandbox';
export const OUTPUT_DIR = '/output';
export const PROXY_SOCKET = '/run/svc/egress.sock';
const PROXY_URL = 'http://127.0.0.1:3128';

export interface BwrapPlan {
  runtime: RuntimePlan;
  tmpBytes: number;
  /** Host path of the egress proxy's socket (allowlist mode). */
  proxySocket?: string | undefined;
  /** bwrap ≥ 0.8: nested user namespaces can be refused (--disable-userns). */
  disableUserns: boolean;
}

function libraryArgs(): string[] {
  const out: string[] = [];
  for (const dir of LIB_DIRS) {
    let st;
    try {
      st = lstatSync(dir);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) out.push('--symlink', readlinkSync(dir), dir);
    else if (st.isDirectory()) out.push('--ro-bind', dir, dir);
  }
  return out;
}

/** Environment of the program (everything else is cleared). */
export function sandboxEnv(plan: BwrapPlan): Record<string, string> {
  const env: Record<string, string> = {
    PATH: '/usr/bin', HOME: '/tmp', TMPDIR: '/tmp', LANG: 'C.UTF-8',
    SVC_SANDBOX_RESULT_FD: '4', SVC_SANDBOX_OUTPUT: OUTPUT_DIR, SVC_SANDBOX_TMPFS: `/tmp:${OUTPUT_DIR}`,
  };
  if (plan.proxySocket) {
    Object.assign(env, {
      SVC_SANDBOX_PROXY_SOCKET: PROXY_SOCKET,
      HTTP_PROXY: PROXY_URL, HTTPS_PROXY: PROXY_URL, http_proxy: PROXY_URL, https_proxy: PROXY_URL,
      // Node's fetch and http honour the *_PROXY variables only when asked to.
      NODE_USE_ENV_PROXY: '1',
    });
  }
  return env;
}

/** `bwrap` arguments up to and including `--`; the runtime's command follows. */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const { runtime } = plan;
  const size = String(plan.tmpBytes);
  const args = [
    '--unshare-all', '--unshare-user', ...(plan.disableUserns ? ['--disable-userns'] : []),
    '--die-with-parent', '--new-session', '--clearenv', '--cap-drop', 'ALL', '--hostname', 'sandbox',
    ...libraryArgs(),
  ];
  for (const b of runtime.binds) args.push('--ro-bind', b.src, b.dest);
  for (const s of runtime.symlinks) args.push('--symlink', s.target, s.link);
  args.push('--proc', '/proc', '--dev', '/dev');
  args.push('--size', size, '--tmpfs', '/tmp', '--size', size, '--tmpfs', OUTPUT_DIR);
  args.push('--ro-bind-data', '3', `${CODE_DIR}/${runtime.codeName}`);
  if (plan.proxySocket) {
    args.push('--ro-bind', plan.proxySocket, PROXY_SOCKET);
    for (const d of CA_DIRS) if (existsSync(d)) args.push('--ro-bind', d, d);
  }
  // Last, so the capped tmpfs stay the only writable places.
  args.push('--remount-ro', '/dev', '--remount-ro', '/', '--chdir', '/tmp');
  for (const [k, v] of Object.entries(sandboxEnv(plan))) args.push('--setenv', k, v);
  args.push('--json-status-fd', '5', '--');
  return args;
}
