import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';
import { SandboxUnavailable, type SandboxRuntime } from './types.ts';

/** Python is resolved once: a pyenv shim is a script needing half of $HOME. */

export interface Bind {
  src: string;
  dest: string;
}

export interface RuntimePlan {
  runtime: SandboxRuntime;
  /** Read-only binds (host → sandbox). */
  binds: Bind[];
  /** Symlinks made inside (link → target), e.g. /usr/bin/python3. */
  symlinks: { link: string; target: string }[];
  /** File name of the program inside the sandbox. */
  codeName: string;
  /** Command inside the sandbox, given the code's path. */
  sandboxArgv(codePath: string): string[];
  /** The same on the host (the `none` driver). */
  hostArgv(codePath: string): string[];
}

/** Also on PATH inside the sandbox. */
export const SANDBOX_NODE = '/usr/bin/node';
const SANDBOX_RUNNER = '/sandbox/runner.cjs';

function nodeParts(): { exe: string; runner?: string } {
  const exe = realpathSync(process.execPath);
  if (isSea()) return { exe };
  return { exe, runner: fileURLToPath(new URL('./node-runner.cjs', import.meta.url)) };
}

interface PythonInfo {
  executable: string;
  prefix: string;
  version: string;
}

const PY_PROBE = 'import json, sys; print(json.dumps({"executable": sys.executable, "prefix": sys.base_prefix, "version": "%d.%d" % sys.version_info[:2]}))';

async function probePython(cmd: string): Promise<PythonInfo> {
  const out = await new Promise<string>((resolve, reject) => {
    execFile(cmd, ['-I', '-c', PY_PROBE], { timeout: 15_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(new SandboxUnavailable(`cannot run ${cmd}: ${((err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : stderr.trim() || err.message)}`, 'install python3 (apt-get install python3) or set SERVICE_SANDBOX_PYTHON to its path'));
      else resolve(stdout);
    });
  });
  const info = JSON.parse(out) as PythonInfo;
  if (!info.executable) throw new SandboxUnavailable(`${cmd} did not report its interpreter path`);
  return { ...info, executable: realpathSync(info.executable) };
}

/** A shared system prefix binds only its stdlib. */
function pythonBinds(py: PythonInfo): Bind[] {
  const binds: Bind[] = [{ src: py.executable, dest: py.executable }];
  if (py.prefix === '/usr') binds.push({ src: `/usr/lib/python${py.version}`, dest: `/usr/lib/python${py.version}` });
  else if (py.prefix === '/usr/local') binds.push({ src: '/usr/local/lib', dest: '/usr/local/lib' });
  else binds.push({ src: py.prefix, dest: py.prefix });
  return binds;
}

export async function resolveRuntime(runtime: SandboxRuntime, pythonCmd: string): Promise<RuntimePlan> {
  const node = nodeParts();
  const binds: Bind[] = [{ src: node.exe, dest: SANDBOX_NODE }];
  if (node.runner) binds.push({ src: node.runner, dest: SANDBOX_RUNNER });
  const inside = node.runner ? [SANDBOX_NODE, SANDBOX_RUNNER] : [SANDBOX_NODE, '__sandbox-node'];
  const outside = node.runner ? [node.exe, node.runner] : [node.exe, '__sandbox-node'];
  if (runtime === 'node') {
    return {
      runtime, binds, symlinks: [], codeName: 'main.js',
      sandboxArgv: (code) => [...inside, code],
      hostArgv: (code) => [...outside, code],
    };
  }
  const py = await probePython(pythonCmd);
  return {
    runtime,
    binds: [...binds, ...pythonBinds(py)],
    symlinks: ['/usr/bin/python3', '/usr/bin/python'].filter((l) => l !== py.executable).map((link) => ({ link, target: py.executable })),
    codeName: 'main.py',
    sandboxArgv: (code) => [...inside, `--python=${py.executable}`, code],
    hostArgv: (code) => [...outside, `--python=${py.executable}`, code],
  };
}
