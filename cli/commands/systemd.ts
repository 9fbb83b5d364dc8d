import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { serveUnit, UNIT_DEFAULTS, workerUnit, type UnitOptions } from './systemd-units.ts';

export interface SystemdCommandOptions {
  dir?: string;
  user?: string;
  envFile?: string;
  dataDir?: string;
  bin?: string;
  stopTimeout?: string;
}

/** This executable when it is the single binary, else the usual path. */
async function defaultBin(): Promise<string> {
  try {
    const sea = await import('node:sea');
    if (sea.isSea()) return process.execPath;
  } catch {
    // not a single-executable build
  }
  return '/usr/local/bin/svc';
}

const SYSTEM_BIN = '/usr/local/bin/svc';

/** The first directory on the way to `bin` without o+x, if any. */
export function blockedForOthers(bin: string): string | undefined {
  for (let p = bin; ; p = dirname(p)) {
    if (existsSync(p) && (statSync(p).mode & 0o001) === 0) return p;
    if (dirname(p) === p) return undefined;
  }
}

/** Enabling the units is left to the operator (docs/operations.md). */
export async function systemd(opts: SystemdCommandOptions): Promise<void> {
  let bin = opts.bin ?? (await defaultBin());
  const blocked = blockedForOthers(bin);
  // The service user cannot run a binary in root's 0700 home.
  if (blocked) {
    const fix = `copy it first: install -m 755 ${bin} ${SYSTEM_BIN}`;
    if (opts.bin) process.stderr.write(`svc: warning: ${blocked} is not accessible to other users, so the service user cannot run ${bin}; ${fix} and pass --bin ${SYSTEM_BIN}\n`);
    else {
      process.stderr.write(`svc: ${bin} is inside ${blocked}, which the service user cannot enter; the units run ${SYSTEM_BIN}: ${fix}\n`);
      bin = SYSTEM_BIN;
    }
  }
  const stop = Number(opts.stopTimeout ?? UNIT_DEFAULTS.workerStopTimeoutMs);
  if (!isAbsolute(bin)) throw new Error('--bin must be an absolute path');
  if (!Number.isInteger(stop) || stop < 0) throw new Error('--stop-timeout must be a number of milliseconds');
  const o: UnitOptions = {
    bin,
    user: opts.user ?? UNIT_DEFAULTS.user,
    envFile: opts.envFile ?? UNIT_DEFAULTS.envFile,
    dataDir: opts.dataDir ?? UNIT_DEFAULTS.dataDir,
    workerStopTimeoutMs: stop,
  };
  if (!/^[a-z_][a-z0-9_-]{0,31}$/.test(o.user)) throw new Error('--user must be a plain user name');
  for (const [flag, p] of [['--config', o.envFile], ['--data-dir', o.dataDir]] as const) {
    if (!isAbsolute(p) || /\s/.test(p)) throw new Error(`${flag} must be an absolute path without spaces`);
  }
  const units = { 'svc.service': serveUnit(o), 'svc-worker@.service': workerUnit(o) };
  if (!opts.dir) {
    for (const [name, text] of Object.entries(units)) process.stdout.write(`# ${name}\n${text}\n`);
    return;
  }
  const dir = resolve(opts.dir);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(units)) {
    writeFileSync(join(dir, name), text, { mode: 0o644 });
    process.stdout.write(`wrote ${join(dir, name)}\n`);
  }
  process.stdout.write(
    `next: create the user and data directory (useradd --system --home ${o.dataDir} ${o.user}; install -d -o ${o.user} -m 700 ${o.dataDir}),\n` +
      `      put the configuration in ${o.envFile} (mode 600), then: systemctl daemon-reload && systemctl enable --now svc svc-worker@1\n`,
  );
}
