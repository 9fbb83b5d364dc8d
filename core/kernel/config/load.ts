import { dirname, join, resolve } from 'node:path';
import { SECRET_NAMES, defaultDataDir, envSchema, preprocessEnv, type EnvConfig, type SecretName } from './schema.ts';

export type Secrets = Record<SecretName, string>;

/** The resolved configuration; `resolveSecrets` fills in the secrets. */
export interface Config extends EnvConfig {
  dbPath: string;
  secretsFile: string;
  schedulerLockPath: string;
  /** LOCAL_LLM_BASE_URL, else OLLAMA_BASE_URL. */
  localLlmBaseUrl: string | undefined;
  production: boolean;
  registrationModeValid: boolean;
}

/** The environment cannot run the service; `problems` names each bad variable. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export const MIN_SECRET_BYTES = 32;
export const REGISTRATION_MODES = ['invite_only', 'open'] as const;

export interface LoadedConfig {
  config: Config;
  warnings: string[];
}

/** Reports every problem at once, so an operator fixes all in one restart. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const input = preprocessEnv(env);
  defaultOriginsFromPort(input);
  const problems: string[] = [];
  const warnings: string[] = [];
  let parsed = envSchema.safeParse(input);
  if (!parsed.success) {
    // Carry on with defaults so later checks report in the same pass.
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? 'environment');
      problems.push(`${name}: ${issue.message} (got ${JSON.stringify(env[name] ?? null)})`);
      delete input[name];
    }
    parsed = envSchema.safeParse(input);
    if (!parsed.success) throw new ConfigError(problems);
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  const dbPath = resolve(e.SERVICE_DB_PATH ?? join(defaultDataDir(env), 'svc.db'));
  const dataDir = dirname(dbPath);
  const config: Config = {
    ...e,
    dbPath,
    secretsFile: resolve(e.SERVICE_SECRETS_FILE ?? join(dataDir, 'secrets.json')),
    schedulerLockPath: resolve(e.SERVICE_SCHEDULER_LOCK_PATH ?? join(dataDir, 'scheduler.lock')),
    localLlmBaseUrl: e.LOCAL_LLM_BASE_URL ?? e.OLLAMA_BASE_URL,
    production,
    registrationModeValid: (REGISTRATION_MODES as readonly string[]).includes(e.SERVICE_REGISTRATION_MODE),
  };

  if (e.SERVICE_STORE === 'postgres' && !e.DATABASE_URL) {
    problems.push('DATABASE_URL: required when SERVICE_STORE=postgres');
  }
  if (e.DATABASE_URL && !/^postgres(ql)?:\/\//.test(e.DATABASE_URL)) {
    problems.push('DATABASE_URL: must start with postgres:// or postgresql://');
  }
  if (e.SERVICE_SCHEDULER_LEADER_MODE === 'http' && !e.SERVICE_SCHEDULER_LEADER_URL) {
    problems.push('SERVICE_SCHEDULER_LEADER_URL: required when SERVICE_SCHEDULER_LEADER_MODE=http');
  }
  if (e.SERVICE_SANDBOX_NETWORK === 'allowlist' && e.SERVICE_SANDBOX_ALLOWED_HOSTS.length === 0) {
    problems.push('SERVICE_SANDBOX_ALLOWED_HOSTS: required when SERVICE_SANDBOX_NETWORK=allowlist (comma-separated hostnames)');
  }
  if (new URL(e.SERVICE_APP_ORIGIN).origin === new URL(e.SERVICE_PREVIEW_ORIGIN).origin) {
    problems.push('SERVICE_PREVIEW_ORIGIN: must be a different origin from SERVICE_APP_ORIGIN (previews run untrusted code)');
  } else if (originHost(e.SERVICE_APP_ORIGIN) === originHost(e.SERVICE_PREVIEW_ORIGIN)) {
    // The listener tells them apart by host; cookies ignore ports.
    problems.push('SERVICE_PREVIEW_ORIGIN: must use a different host name from SERVICE_APP_ORIGIN, not only another port or scheme (e.g. preview.example.com; see docs/preview.md)');
  }
  if (production) {
    for (const name of ['SERVICE_APP_ORIGIN', 'SERVICE_PREVIEW_ORIGIN'] as const) {
      if (new URL(e[name]).protocol !== 'https:') problems.push(`${name}: must be an https:// origin in production`);
    }
    if (e.SERVICE_SANDBOX_DRIVER === 'none') {
      problems.push('SERVICE_SANDBOX_DRIVER: "none" runs tool code unconfined and is refused in production');
    }
    problems.push(...checkProductionSecrets(e));
  }
  if (problems.length > 0) throw new ConfigError(problems);

  if (!config.registrationModeValid) {
    warnings.push(
      `SERVICE_REGISTRATION_MODE: "${e.SERVICE_REGISTRATION_MODE}" is not invite_only or open; registration will answer 500 registration_misconfigured until it is fixed`,
    );
  } else if (e.SERVICE_REGISTRATION_MODE === 'open') {
    warnings.push('SERVICE_REGISTRATION_MODE=open: anyone who can reach this service can create an account; use it on a trusted network only');
  }
  if (e.LOCAL_LLM_BASE_URL && e.OLLAMA_BASE_URL && e.LOCAL_LLM_BASE_URL !== e.OLLAMA_BASE_URL) {
    warnings.push('LOCAL_LLM_BASE_URL and OLLAMA_BASE_URL differ; LOCAL_LLM_BASE_URL is used');
  }
  return { config, warnings };
}

/** Unset origins follow PORT, so sign-up links work on any port. */
function defaultOriginsFromPort(input: Record<string, unknown>): void {
  const port = /^\d+$/.test(String(input.PORT ?? '')) && Number(input.PORT) > 0 && Number(input.PORT) <= 65535 ? Number(input.PORT) : 8484;
  input.SERVICE_APP_ORIGIN ??= `http://localhost:${port}`;
  input.SERVICE_PREVIEW_ORIGIN ??= `http://preview.localhost:${port}`;
}

/** Host as the listener compares it: lower case, no trailing dot. */
export function originHost(origin: string): string {
  return new URL(origin).hostname.toLowerCase().replace(/\.$/, '');
}

/** Every secret set, long, and distinct, so one leak opens one lock. */
export function checkProductionSecrets(e: Partial<Record<SecretName, string | undefined>>): string[] {
  const problems: string[] = [];
  const seen = new Map<string, SecretName>();
  for (const name of SECRET_NAMES) {
    const value = e[name];
    if (!value) {
      problems.push(`${name}: required in production (generate one with: openssl rand -base64 48)`);
      continue;
    }
    if (Buffer.byteLength(value, 'utf8') < MIN_SECRET_BYTES) {
      problems.push(`${name}: must be at least ${MIN_SECRET_BYTES} bytes in production`);
    }
    const twin = seen.get(value);
    if (twin) problems.push(`${name}: must differ from ${twin} (each secret must be independent)`);
    else seen.set(value, name);
  }
  return problems;
}
