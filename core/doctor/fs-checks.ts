import { accessSync, constants, existsSync, statfsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Config } from '../kernel/config/index.ts';
import type { Finding } from './types.ts';

const MIN_FREE_BYTES = 512 * 1024 * 1024;

/** The directory that will hold the database once it is created. */
function existingAncestor(path: string): string {
  let p = path;
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  return p;
}

export function checkDataDir(config: Config, freeBytes = (p: string) => { const s = statfsSync(p); return s.bavail * s.bsize; }): Finding[] {
  const findings: Finding[] = [];
  if (config.SERVICE_STORE === 'sqlite') {
    const dir = dirname(config.dbPath);
    const probe = existingAncestor(dir);
    try {
      if (!statSync(probe).isDirectory()) throw new Error('not a directory');
      accessSync(probe, constants.W_OK | constants.R_OK);
      findings.push({ check: 'data-dir', status: 'ok', message: `${dir} is writable` });
    } catch {
      findings.push({
        check: 'data-dir',
        status: 'fail',
        message: statSync(probe).isDirectory()
          ? `${probe} is not writable by this user, so the database ${config.dbPath} cannot be created or written`
          : `${probe} is a file, not a directory, so the database ${config.dbPath} cannot be created there`,
        fix: statSync(probe).isDirectory()
          ? `chown $(id -u) ${probe}  (or set SERVICE_DB_PATH to a writable location)`
          : `set SERVICE_DB_PATH to a path inside a directory (or move ${probe} away)`,
      });
    }
    if (existsSync(dir) && statSync(dir).isDirectory() && (statSync(dir).mode & 0o007) !== 0) {
      findings.push({ check: 'data-dir', status: 'warn', message: `${dir} is accessible to other users`, fix: `chmod 700 ${dir}` });
    }
    const free = freeBytes(probe);
    findings.push(
      free < MIN_FREE_BYTES
        ? { check: 'disk', status: 'fail', message: `only ${Math.round(free / 1048576)} MiB free under ${probe}`, fix: 'free disk space or move SERVICE_DB_PATH to a larger volume (512 MiB minimum)' }
        : { check: 'disk', status: 'ok', message: `${Math.round(free / 1048576)} MiB free under ${probe}` },
    );
  }
  if (!config.production && existsSync(config.secretsFile)) {
    const mode = statSync(config.secretsFile).mode & 0o777;
    if (mode !== 0o600) {
      findings.push({ check: 'secrets', status: 'fail', message: `${config.secretsFile} has mode ${mode.toString(8)}`, fix: `chmod 600 ${config.secretsFile}` });
    }
  }
  if (!config.production) {
    findings.push({
      check: 'secrets',
      status: 'warn',
      message: 'development mode: missing secrets are generated into ' + config.secretsFile,
      fix: 'for a reachable installation set NODE_ENV=production and every SERVICE_*_SECRET / SERVICE_VAULT_KEY (openssl rand -base64 48 each)',
    });
  } else {
    findings.push({ check: 'secrets', status: 'ok', message: 'production secrets set, distinct and long enough; origins are HTTPS' });
  }
  return findings;
}
