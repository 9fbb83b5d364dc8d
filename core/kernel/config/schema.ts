import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';

/** Every variable the service reads, documented here; unknown ones are ignored (shared environment). */

const int = (def: number, min: number, max: number) => {
  const error = `must be a whole number from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error }).default(def);
};
const optionalUrl = z.url({ protocol: /^https?$/ }).optional();
/** A hostname, IP literal or `*.suffix` entry of a host allowlist (lower case). */
export const HOST_PATTERN_RE = /^(\*\.)?(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*\.?$|^\[?[0-9a-f:.]+\]?$/;
/** An IPv4/IPv6 address or CIDR (`10.0.0.0/8`, `fd00::/8`, `192.168.1.20`). */
const isCidr = (v: string) => {
  const [ip = '', len, extra] = v.split('/');
  const family = isIP(ip.replace(/^\[(.*)\]$/, '$1'));
  if (family === 0 || extra !== undefined) return false;
  return len === undefined || (/^\d{1,3}$/.test(len) && Number(len) <= (family === 4 ? 32 : 128));
};
/** Anything address-like must be a valid address. */
const isAllowedPrivateEntry = (h: string) => isCidr(h) || (!/[:/[\]]/.test(h) && !/^[\d.]+$/.test(h) && HOST_PATTERN_RE.test(h));
const emptyAsUndefined = (v: unknown) => (v === '' ? undefined : v);

export function defaultDataDir(env: NodeJS.ProcessEnv): string {
  const home = env.HOME || homedir() || '.';
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'svc');
}

export const SECRET_NAMES = [
  'SERVICE_SESSION_SECRET',
  'SERVICE_VAULT_KEY',
  'SERVICE_PREVIEW_SECRET',
  'SERVICE_APPROVAL_SECRET',
  'SERVICE_WEBHOOK_SECRET',
  'SERVICE_RATE_LIMIT_SECRET',
  'SERVICE_INVITATION_EMAIL_SECRET',
] as const;
export type SecretName = (typeof SECRET_NAMES)[number];

export const envSchema = z.object({
  /** `production` enforces real secrets, HTTPS origins and Secure cookies. */
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** HTTP listener port. */
  PORT: int(8484, 0, 65535),
  /** Address to bind; loopback, so no one on the network claims a fresh install. */
  SERVICE_HOST: z.string().min(1).default('127.0.0.1'),
  /** Client address from X-Forwarded-For's last entry; off unless a proxy appends it.
   * When on, X-Forwarded-Host must name one of our origins. */
  SERVICE_TRUST_PROXY: z.enum(['true', 'false', '1', '0']).default('false').transform((v) => v === 'true' || v === '1'),
  /** Persistence: an embedded SQLite file, or PostgreSQL for several replicas and workers. */
  SERVICE_STORE: z.enum(['sqlite', 'postgres']).default('sqlite'),
  /** SQLite database file. Default: $XDG_DATA_HOME/svc/svc.db (~/.local/share/svc/svc.db). */
  SERVICE_DB_PATH: z.string().min(1).optional(),
  /** PostgreSQL connection string; required when SERVICE_STORE=postgres. Never logged. */
  DATABASE_URL: z.string().min(1).optional(),
  /** Size of the PostgreSQL connection pool per process. */
  SERVICE_DB_POOL_SIZE: int(10, 1, 200),
  /** Workbench origin for sign-up links and the Host check (docs/operations.md); default http://localhost:$PORT. */
  SERVICE_APP_ORIGIN: z.url({ protocol: /^https?$/ }).default('http://localhost:8484'),
  /** Preview origin, another host than the app's; default http://preview.localhost:$PORT. */
  SERVICE_PREVIEW_ORIGIN: z.url({ protocol: /^https?$/ }).default('http://preview.localhost:8484'),
  /** Preview link lifetime in seconds: how long a leaked link works. */
  SERVICE_PREVIEW_LINK_TTL_S: int(3600, 60, 7 * 24 * 3600),
  /** run_code boundary: `container` (docs/sandbox.md) or `none`, unconfined, refused in production. */
  SERVICE_SANDBOX_DRIVER: z.enum(['container', 'bubblewrap', 'none']).default('container').transform((v) => (v === 'bubblewrap' ? 'container' : v)),
  /** run_code language: `node` (the svc binary) or `python` (the host's python3). */
  SERVICE_SANDBOX_RUNTIME: z.enum(['node', 'python']).default('node'),
  /** python3 to use; its prefix is bound read-only into the sandbox. */
  SERVICE_SANDBOX_PYTHON: z.string().min(1).default('python3'),
  /** Wall-clock limit of one execution, ms; kills the whole process tree. */
  SERVICE_SANDBOX_TIMEOUT_MS: int(10_000, 100, 600_000),
  /** Memory per execution, MiB: a cgroup limit, else RLIMIT_DATA. */
  SERVICE_SANDBOX_MEMORY_MB: int(256, 32, 16_384),
  /** CPU seconds per process (RLIMIT_CPU). */
  SERVICE_SANDBOX_CPU_SECONDS: int(10, 1, 3600),
  /** Processes and threads per execution; Node alone uses about ten. */
  SERVICE_SANDBOX_MAX_PROCESSES: int(64, 8, 4096),
  /** Size of /tmp and of /output each, MiB. */
  SERVICE_SANDBOX_TMP_MB: int(64, 1, 16_384),
  /** Sandbox network: `none` (own loopback) or `allowlist` (egress proxy); `loopback` is an old name. */
  SERVICE_SANDBOX_NETWORK: z.enum(['none', 'loopback', 'allowlist']).default('none').transform((v) => (v === 'loopback' ? 'none' : v)),
  /** Hosts the allowlist proxy lets through, any port; the address guard still applies. */
  SERVICE_SANDBOX_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== ''))
    .pipe(z.array(z.string().regex(HOST_PATTERN_RE, 'each entry must be a hostname or *.suffix'))),
  /** http_request: one call's limit in ms, redirects included. */
  SERVICE_TOOL_HTTP_TIMEOUT_MS: int(10_000, 100, 600_000),
  /** http_request: response bytes read before truncating. */
  SERVICE_TOOL_HTTP_MAX_RESPONSE_BYTES: int(1024 * 1024, 1024, 64 * 1024 * 1024),
  /** http_request: largest request body, bytes. */
  SERVICE_TOOL_HTTP_MAX_REQUEST_BYTES: int(256 * 1024, 0, 64 * 1024 * 1024),
  /** http_request to non-public addresses; off so an injected prompt cannot reach internal services (SSRF). */
  SERVICE_TOOL_HTTP_ALLOW_PRIVATE: z.enum(['true', 'false', '1', '0']).default('false').transform((v) => v === 'true' || v === '1'),
  /** http_request hosts or `*.suffix` entries; empty: any public host. Agents only narrow it. */
  SERVICE_TOOL_HTTP_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== ''))
    .pipe(z.array(z.string().regex(HOST_PATTERN_RE, 'each entry must be a hostname or *.suffix'))),
  /** invite_only or open; anything else still starts, but registration answers 500. */
  SERVICE_REGISTRATION_MODE: z.string().default('invite_only'),
  /** Scheduler coordination: off (every replica schedules; one replica only), file-lock, or http. */
  SERVICE_SCHEDULER_LEADER_MODE: z.enum(['off', 'file-lock', 'http']).default('off'),
  /** Lock file for file-lock mode. Default: beside the database. */
  SERVICE_SCHEDULER_LOCK_PATH: z.string().min(1).optional(),
  /** Lease endpoint for http mode. */
  SERVICE_SCHEDULER_LEADER_URL: optionalUrl,
  /** Tick interval, ms, aligned to its multiples; at most a minute so no cron minute is skipped. */
  SERVICE_SCHEDULER_TICK_MS: int(60_000, 100, 60_000),
  /** Non-public hosts, IPs or CIDRs a provider baseUrl may reach (docs/providers.md); admins set baseUrls (SSRF). */
  SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== ''))
    .pipe(z.array(z.string().refine(isAllowedPrivateEntry, 'each entry must be a host name, *.suffix, IP address or CIDR'))),
  /** Base URL of the one local chat-completions target (e.g. http://127.0.0.1:11434/v1). */
  LOCAL_LLM_BASE_URL: optionalUrl,
  /** Alias of LOCAL_LLM_BASE_URL (Ollama's name); LOCAL_LLM_BASE_URL wins when both are set. */
  OLLAMA_BASE_URL: optionalUrl,
  /** Run starts per user per sliding minute; chat has its own allowance of the same size. */
  RATE_LIMIT_CHAT_PER_MINUTE: int(60, 1, 1_000_000),
  /** Gateway requests per minute for a workspace that has no limits of its own (0: unlimited). */
  SERVICE_GATEWAY_DEFAULT_RPM: int(1200, 0, 10_000_000),
  /** Gateway tokens per minute for a workspace that has no limits of its own (0: unlimited). */
  SERVICE_GATEWAY_DEFAULT_TPM: int(2_000_000, 0, 1_000_000_000),
  /** Upstream wait for the first byte and between chunks, ms; long, as reasoning is slow. */
  SERVICE_UPSTREAM_TIMEOUT_MS: int(600_000, 1000, 3_600_000),
  /** Workers inside `svc serve`; `auto`: 2 on SQLite (one process suffices), 0 on PostgreSQL. */
  SERVICE_EMBEDDED_WORKERS: z.union([z.literal('auto'), z.coerce.number().int().min(0).max(256)], { error: 'must be auto or a whole number from 0 to 256' }).default('auto'),
  /** A job claim's lifetime; renewed every third of it. */
  SERVICE_JOB_LEASE_MS: int(30_000, 1000, 3_600_000),
  /** Relay that receives invitation emails to send (signed POST). Unset: no email is sent. */
  SERVICE_INVITATION_EMAIL_URL: optionalUrl,
  /** Log threshold. */
  SERVICE_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** Largest request body accepted on /api routes, in bytes. */
  SERVICE_BODY_LIMIT_BYTES: int(1024 * 1024, 1024, 1024 * 1024 * 1024),
  /** Largest /api/v1 body, bytes; prompts with images are large. */
  SERVICE_GATEWAY_BODY_LIMIT_BYTES: int(20 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  /** Shutdown's wait for in-flight requests, ms. */
  SERVICE_SHUTDOWN_TIMEOUT_MS: int(10_000, 0, 600_000),
  /** Development only: where generated secrets are kept. Default: beside the database. */
  SERVICE_SECRETS_FILE: z.string().min(1).optional(),
  /** Signs session ids and the CSRF double-submit value. */
  SERVICE_SESSION_SECRET: z.string().optional(),
  /** Encrypts provider API keys at rest (AES-256-GCM key derived from it). */
  SERVICE_VAULT_KEY: z.string().optional(),
  /** Signs preview capability tokens. */
  SERVICE_PREVIEW_SECRET: z.string().optional(),
  /** Signs tool-approval decisions. */
  SERVICE_APPROVAL_SECRET: z.string().optional(),
  /** Signs outbound webhook deliveries and keys webhook-ref hashes. */
  SERVICE_WEBHOOK_SECRET: z.string().optional(),
  /** Keys the hashes of rate-limit subjects and stored credentials. */
  SERVICE_RATE_LIMIT_SECRET: z.string().optional(),
  /** Shared secret the email relay sends back in x-svc-webhook-secret. */
  SERVICE_INVITATION_EMAIL_SECRET: z.string().optional(),
});

export const preprocessEnv = (env: NodeJS.ProcessEnv): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(envSchema.shape)) out[key] = emptyAsUndefined(env[key]);
  return out;
};

export type EnvConfig = z.infer<typeof envSchema>;
