import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { ConfigError, loadConfig } from '../../core/kernel/config/index.ts';
import { SECRET_NAMES } from '../../core/kernel/config/schema.ts';
import { UNIT_DEFAULTS } from './systemd-units.ts';

export interface SetupOptions {
  envFile: string;
  appOrigin: string;
  previewOrigin: string;
  dataDir: string;
  port: string;
  databaseUrl?: string;
  force?: boolean;
}

/** Every secret fresh and distinct. */
export function productionEnv(o: SetupOptions, now = new Date()): string {
  const lines = [
    `# svc configuration, written by \`svc setup\` on ${now.toISOString()}. Holds secrets: keep it mode 0600.`,
    '# Every variable is documented in the README (Configuration). Restart svc after a change.',
    'NODE_ENV=production',
    `PORT=${o.port}`,
    '# Loopback only: the TLS reverse proxy in front (docs/deploy.md) is what the network reaches.',
    'SERVICE_HOST=127.0.0.1',
    'SERVICE_TRUST_PROXY=true',
    `SERVICE_APP_ORIGIN=${o.appOrigin}`,
    `SERVICE_PREVIEW_ORIGIN=${o.previewOrigin}`,
    ...(o.databaseUrl
      ? ['SERVICE_STORE=postgres', `DATABASE_URL=${o.databaseUrl}`]
      : ['SERVICE_STORE=sqlite', `SERVICE_DB_PATH=${join(o.dataDir, 'svc.db')}`]),
    '# Independent secrets (48 random bytes each). Rotating SERVICE_RATE_LIMIT_SECRET invalidates every',
    '# issued token and key; rotating SERVICE_VAULT_KEY makes stored provider keys unreadable.',
    ...SECRET_NAMES.map((name) => `${name}=${randomBytes(48).toString('base64url')}`),
  ];
  return lines.join('\n') + '\n';
}

/** As systemd's EnvironmentFile= reads this file's simple form. */
export function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) env[m[1]!] = m[2]!.trim();
  }
  return env;
}

/** Mode 0600; never over an existing file without --force. */
export async function setup(o: SetupOptions): Promise<void> {
  if (!isAbsolute(o.envFile)) throw new Error('--config must be an absolute path');
  if (!isAbsolute(o.dataDir)) throw new Error('--data-dir must be an absolute path');
  const text = productionEnv(o);
  try {
    loadConfig({ HOME: o.dataDir, ...parseEnvFile(text) });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    throw new Error(`svc would not start with this configuration:\n${err.problems.map((p) => `  - ${p}`).join('\n')}\n(the origins must be https:// URLs on two different host names)`);
  }
  if (existsSync(o.envFile) && !o.force) {
    throw new Error(`${o.envFile} exists; it was not changed (its secrets encrypt stored keys). Pass --force to replace it`);
  }
  mkdirSync(dirname(o.envFile), { recursive: true, mode: 0o755 });
  // Renamed into place: never a half-written secrets file.
  const tmp = `${o.envFile}.tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, o.envFile);
  const u = UNIT_DEFAULTS.user;
  process.stdout.write(
    `wrote ${o.envFile} (mode 600) with fresh secrets\n` +
      'next (as root; see docs/deploy.md):\n' +
      '  install -m 755 "$(command -v svc)" /usr/local/bin/svc      # a path the service user can run\n' +
      `  useradd --system --home ${o.dataDir} --shell /usr/sbin/nologin ${u}\n` +
      `  install -d -o ${u} -g ${u} -m 700 ${o.dataDir}\n` +
      `  /usr/local/bin/svc systemd --dir /etc/systemd/system --bin /usr/local/bin/svc --config ${o.envFile} --data-dir ${o.dataDir}\n` +
      '  systemctl daemon-reload && systemctl enable --now svc svc-worker@1\n' +
      `  then put a TLS reverse proxy for ${o.appOrigin} and ${o.previewOrigin} in front of 127.0.0.1:${o.port}\n`,
  );
}
