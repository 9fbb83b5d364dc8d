import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { SECRET_NAMES, type SecretName } from './schema.ts';
import type { Config, Secrets } from './load.ts';

export interface ResolvedSecrets {
  secrets: Secrets;
  /** Names taken from (or written to) the development secrets file. */
  generated: SecretName[];
  warning: string | undefined;
}

/** Production secrets come from the environment; development ones are generated once
 * into a 0600 file, so sessions and encrypted keys survive restarts. */
export function resolveSecrets(config: Config): ResolvedSecrets {
  const fromEnv: Partial<Secrets> = {};
  for (const name of SECRET_NAMES) if (config[name]) fromEnv[name] = config[name];
  const missing = SECRET_NAMES.filter((n) => !fromEnv[n]);
  if (missing.length === 0) return { secrets: fromEnv as Secrets, generated: [], warning: undefined };
  if (config.production) throw new Error(`missing production secrets: ${missing.join(', ')}`);

  const file = readSecretsFile(config.secretsFile);
  let changed = false;
  for (const name of missing) {
    if (!file[name]) {
      file[name] = randomBytes(32).toString('base64url');
      changed = true;
    }
  }
  if (changed) {
    mkdirSync(dirname(config.secretsFile), { recursive: true, mode: 0o700 });
    writeFileSync(config.secretsFile, JSON.stringify(file, null, 2) + '\n', { mode: 0o600 });
  }
  chmodSync(config.secretsFile, 0o600);
  const secrets = { ...file, ...fromEnv } as Secrets;
  return {
    secrets,
    generated: missing,
    warning: `development secrets for ${missing.length} variable(s) are kept in ${config.secretsFile}; set real secrets and NODE_ENV=production before exposing this service`,
  };
}

function readSecretsFile(path: string): Partial<Record<SecretName, string>> {
  try {
    const raw = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (!raw || typeof raw !== 'object') return {};
    const out: Partial<Record<SecretName, string>> = {};
    for (const name of SECRET_NAMES) {
      const v = (raw as Record<string, unknown>)[name];
      if (typeof v === 'string' && v.length > 0) out[name] = v;
    }
    return out;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`cannot read the development secrets file ${path}: ${(err as Error).message}`, { cause: err });
  }
}
