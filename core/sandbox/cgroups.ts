import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Per-execution cgroups, children of svc's own so its limits still apply (docs/sandbox.md). */

type Controller = 'memory' | 'pids' | 'cpu';

interface Hierarchy {
  version: 1 | 2;
  /** The directory children are made in (svc's own cgroup in that hierarchy). */
  parent: string;
}

export interface CgroupSupport {
  memory?: Hierarchy | undefined;
  pids?: Hierarchy | undefined;
  cpu?: Hierarchy | undefined;
  /** Why a controller is missing, for doctor. */
  note?: string | undefined;
}

const PREFIX = 'svc-sbx-';
let seq = 0;

interface MountLine {
  point: string;
  type: string;
  opts: string[];
}

function mounts(): MountLine[] {
  try {
    return readFileSync('/proc/self/mounts', 'utf8').split('\n').filter(Boolean).map((l) => {
      const [, point = '', type = '', opts = ''] = l.split(' ');
      return { point: point.replace(/\\040/g, ' '), type, opts: opts.split(',') };
    });
  } catch {
    return [];
  }
}

/** `/proc/self/cgroup`: controller list → path (v2: key ''). */
function ownPaths(): Map<string, string> {
  const out = new Map<string, string>();
  try {
    for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
      const m = /^\d+:([^:]*):(.*)$/.exec(line);
      if (!m) continue;
      for (const c of m[1]!.split(',')) out.set(c, m[2]!);
    }
  } catch {}
  return out;
}

const V1_NAME: Record<Controller, string> = { memory: 'memory', pids: 'pids', cpu: 'cpuacct' };
const V1_PROBE: Record<Controller, string> = { memory: 'memory.limit_in_bytes', pids: 'pids.max', cpu: 'cpuacct.usage' };
const V2_PROBE: Record<Controller, string> = { memory: 'memory.max', pids: 'pids.max', cpu: 'cpu.stat' };

/** Finds and probes the controllers; sweeps what killed processes left. */
export function detectCgroups(): CgroupSupport {
  const all = mounts();
  const own = ownPaths();
  const out: CgroupSupport = {};
  const problems: string[] = [];
  for (const c of ['memory', 'pids', 'cpu'] as const) {
    const candidates: Hierarchy[] = [];
    const v1 = all.find((m) => m.type === 'cgroup' && m.opts.includes(V1_NAME[c]));
    const v1Path = own.get(V1_NAME[c]);
    if (v1 && v1Path !== undefined) candidates.push({ version: 1, parent: join(v1.point, v1Path) });
    const v2 = all.find((m) => m.type === 'cgroup2');
    const v2Path = own.get('');
    if (v2 && v2Path !== undefined) {
      const parent = join(v2.point, v2Path);
      const wanted = c === 'cpu' ? 'cpu' : c;
      if (enableV2(parent, wanted)) candidates.push({ version: 2, parent });
    }
    for (const h of candidates) {
      const err = probe(h, c);
      if (err === undefined) {
        out[c] = h;
        sweep(h.parent);
        break;
      }
      problems.push(`${c} (v${h.version}, ${h.parent}): ${err}`);
    }
    if (!out[c] && candidates.length === 0) problems.push(`${c}: no cgroup hierarchy with this controller is mounted`);
  }
  if (problems.length && (!out.memory || !out.pids)) out.note = problems.join('; ');
  return out;
}

/** v2: children get a controller only through the parent's cgroup.subtree_control. */
function enableV2(parent: string, controller: string): boolean {
  try {
    const ctl = readFileSync(join(parent, 'cgroup.subtree_control'), 'utf8').split(/\s+/);
    if (ctl.includes(controller)) return true;
    // EBUSY when svc sits in `parent`: the "no internal processes" rule.
    writeFileSync(join(parent, 'cgroup.subtree_control'), `+${controller}`);
    return true;
  } catch {
    return false;
  }
}

function probe(h: Hierarchy, c: Controller): string | undefined {
  const dir = join(h.parent, `${PREFIX}${process.pid}-probe`);
  try {
    mkdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') return `cannot create a child cgroup (${code})`;
  }
  try {
    return existsSync(join(dir, h.version === 1 ? V1_PROBE[c] : V2_PROBE[c])) ? undefined : 'the controller is not enabled for child cgroups';
  } finally {
    rmdirOnce(dir);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Empties and removes cgroups whose svc process was killed. */
function sweep(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const m = new RegExp(`^${PREFIX}(\\d+)-`).exec(name);
    if (!m || isAlive(Number(m[1]))) continue;
    const dir = join(parent, name);
    killAllIn(dir);
    void removeDir(dir);
  }
}

function killAllIn(dir: string): void {
  try {
    for (const p of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
      try {
        process.kill(Number(p), 'SIGKILL');
      } catch {}
    }
  } catch {}
}

function rmdirOnce(dir: string): 'done' | 'busy' | 'failed' {
  try {
    rmdirSync(dir);
    return 'done';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'done' : code === 'EBUSY' ? 'busy' : 'failed';
  }
}

/** A cgroup is busy until its last task is reaped. */
async function removeDir(dir: string): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    const r = rmdirOnce(dir);
    if (r !== 'busy') return r === 'done';
    killAllIn(dir);
    await new Promise((res) => setTimeout(res, 10));
  }
  return false;
}

const readNum = (file: string, key?: string): number => {
  try {
    const text = readFileSync(file, 'utf8');
    if (key === undefined) return Number(text.trim()) || 0;
    const m = new RegExp(`^${key}\\s+(\\d+)`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
};

/** `procsFiles`: where the launcher writes its own pid. */
export class RunCgroups {
  readonly procsFiles: string[] = [];
  private readonly dirs = new Map<Controller, { dir: string; version: 1 | 2 }>();

  constructor(support: CgroupSupport, limits: { memoryMb: number; maxProcesses: number }) {
    const name = `${PREFIX}${process.pid}-${++seq}`;
    try {
      for (const c of ['memory', 'pids', 'cpu'] as const) {
        const h = support[c];
        if (!h) continue;
        const dir = join(h.parent, name);
        mkdirSync(dir);
        this.dirs.set(c, { dir, version: h.version });
        this.procsFiles.push(join(dir, 'cgroup.procs'));
      }
      const bytes = String(limits.memoryMb * 1024 * 1024);
      const mem = this.dirs.get('memory');
      if (mem?.version === 1) {
        writeFileSync(join(mem.dir, 'memory.limit_in_bytes'), bytes);
        // No swapping past the limit (only with swap accounting).
        if (existsSync(join(mem.dir, 'memory.memsw.limit_in_bytes'))) writeFileSync(join(mem.dir, 'memory.memsw.limit_in_bytes'), bytes);
      } else if (mem) {
        writeFileSync(join(mem.dir, 'memory.max'), bytes);
        if (existsSync(join(mem.dir, 'memory.swap.max'))) writeFileSync(join(mem.dir, 'memory.swap.max'), '0');
      }
      const pids = this.dirs.get('pids');
      if (pids) writeFileSync(join(pids.dir, 'pids.max'), String(limits.maxProcesses));
    } catch (err) {
      void this.remove();
      throw err;
    }
  }

  /** The kernel's OOM killer ran inside the memory cgroup. */
  oomKilled(): boolean {
    const m = this.dirs.get('memory');
    if (!m) return false;
    return m.version === 1 ? readNum(join(m.dir, 'memory.oom_control'), 'oom_kill') > 0 : readNum(join(m.dir, 'memory.events'), 'oom_kill') > 0;
  }

  /** A fork or thread creation was refused by pids.max. */
  pidsLimitHit(): boolean {
    const p = this.dirs.get('pids');
    return p ? readNum(join(p.dir, 'pids.events'), 'max') > 0 : false;
  }

  /** CPU seconds used by every task of the execution, when accounted. */
  cpuSeconds(): number | undefined {
    const c = this.dirs.get('cpu');
    if (!c) return undefined;
    return c.version === 1 ? readNum(join(c.dir, 'cpuacct.usage')) / 1e9 : readNum(join(c.dir, 'cpu.stat'), 'usage_usec') / 1e6;
  }

  killAll(): void {
    for (const { dir } of this.dirs.values()) killAllIn(dir);
  }

  /** Kills whatever is left and removes the directories. */
  async remove(): Promise<void> {
    const dirs = [...this.dirs.values()].map((d) => d.dir);
    this.dirs.clear();
    for (const dir of dirs) killAllIn(dir);
    await Promise.all(dirs.map(removeDir));
  }
}
