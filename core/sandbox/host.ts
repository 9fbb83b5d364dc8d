import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';

/** PATH plus the usual system directories. */
export function findProgram(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin'];
  for (const d of dirs) {
    if (!d) continue;
    const p = join(d, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {}
  }
  return undefined;
}

/** No core files: a core_pattern pipe would run a host program. */
export function rlimitArgs(o: { cpuSeconds: number; dataBytes?: number | undefined; nproc?: number | undefined }): string[] {
  const out = [`--cpu=${o.cpuSeconds}:${o.cpuSeconds + 1}`, '--core=0'];
  if (o.dataBytes !== undefined) out.push(`--data=${o.dataBytes}`);
  if (o.nproc !== undefined) out.push(`--nproc=${o.nproc}`);
  return out;
}
