import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';

/**
 * Every environment variable the service reads, in one schema. Each entry has a doc comment and a
 * default; `svc doctor` and `svc serve` report problems by variable name. Unknown variables are
 * ignored (the environment is shared with the rest of the system).
 */

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
/** Something that looks like an address (digits and dots, a colon, a slash) must be a valid one. */
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
  /** Address to bind. Loopback by default so a fresh install is not claimable from the network
   * before its owner registers; set 0.0.0.0 (or put a reverse proxy in front) to expose it. */
  SERVICE_HOST: z.string().min(1).default('127.0.0.1'),
  /** Behind a reverse proxy: take the client address (login throttling, logs) from the last entry
   * of X-Forwarded-For, which the proxy appends. Leave false when clients connect directly, or they
   * could pick their own address. When true, an X-Forwarded-Host must also name one of our origins. */
  SERVICE_TRUST_PROXY: z.enum(['true', 'false', '1', '0']).default('false').transform((v) => v === 'true' || v === '1'),
  /** Persistence: an embedded SQLite file, or PostgreSQL for several replicas and workers. */
  SERVICE_STORE: z.enum(['sqlite', 'postgres']).default('sqlite'),
  /** SQLite database file. Default: $XDG_DATA_HOME/svc/svc.db (~/.local/share/svc/svc.db). */
  SERVICE_DB_PATH: z.string().min(1).optional(),
  /** PostgreSQL connection string; required when SERVICE_STORE=postgres. Never logged. */
  DATABASE_URL: z.string().min(1).optional(),
  /** Size of the PostgreSQL connection pool per process. */
  SERVICE_DB_POOL_SIZE: int(10, 1, 200),
  /** Public origin of the workbench; sign-up links are built on it. Only its Host, the preview
   * origin's and loopback names are answered (DNS rebinding; docs/operations.md). HTTPS in production.
   * Default http://localhost:$PORT. */
  SERVICE_APP_ORIGIN: z.url({ protocol: /^https?$/ }).default('http://localhost:8484'),
  /** Origin that serves generated-app previews; must differ from the app origin. HTTPS in production.
   * Default http://preview.localhost:$PORT. */
  SERVICE_PREVIEW_ORIGIN: z.url({ protocol: /^https?$/ }).default('http://preview.localhost:8484'),
  /** Lifetime of a preview link (`POST /api/app/apps/:appId/preview-links`) in seconds: how long a
   * leaked link keeps working. Rotating SERVICE_PREVIEW_SECRET ends every link at once. */
  SERVICE_PREVIEW_LINK_TTL_S: int(3600, 60, 7 * 24 * 3600),
  /** Code-execution boundary of the run_code tool: `container` (default; an unprivileged Linux
   * container built with bubblewrap, see docs/sandbox.md) or `none` (runs code unconfined:
   * development only, refused in production). `bubblewrap` is the earlier name of `container`. */
  SERVICE_SANDBOX_DRIVER: z.enum(['container', 'bubblewrap', 'none']).default('container').transform((v) => (v === 'bubblewrap' ? 'container' : v)),
  /** Language of the run_code tool: `node` (runs on the svc binary itself) or `python` (the host's python3). */
  SERVICE_SANDBOX_RUNTIME: z.enum(['node', 'python']).default('node'),
  /** The python3 the `python` runtime uses (a name on PATH or an absolute path); its real
   * interpreter and installation prefix are bound read-only into the sandbox. */
  SERVICE_SANDBOX_PYTHON: z.string().min(1).default('python3'),
  /** Wall-clock limit of one run_code execution, in milliseconds; the whole process tree is killed. */
  SERVICE_SANDBOX_TIMEOUT_MS: int(10_000, 100, 600_000),
  /** Memory limit of one execution, in MiB (a cgroup limit where one can be made, else RLIMIT_DATA). */
  SERVICE_SANDBOX_MEMORY_MB: int(256, 32, 16_384),
  /** CPU-time limit of each process of an execution, in seconds (RLIMIT_CPU). */
  SERVICE_SANDBOX_CPU_SECONDS: int(10, 1, 3600),
  /** Tasks (processes and their threads: Node uses about ten) inside one execution. */
  SERVICE_SANDBOX_MAX_PROCESSES: int(64, 8, 4096),
  /** Size of each of the sandbox's two writable places, /tmp and /output, in MiB. */
  SERVICE_SANDBOX_TMP_MB: int(64, 1, 16_384),
  /** Outbound network of the sandbox: `none` (default: only its own loopback) or `allowlist`
   * (HTTP(S) through svc's egress proxy, to SERVICE_SANDBOX_ALLOWED_HOSTS only). `loopback` is the
   * earlier name of `none`. */
  SERVICE_SANDBOX_NETWORK: z.enum(['none', 'loopback', 'allowlist']).default('none').transform((v) => (v === 'loopback' ? 'none' : v)),
  /** With SERVICE_SANDBOX_NETWORK=allowlist: comma-separated hostnames or `*.suffix` entries the
   * sandbox may reach through the egress proxy (any port). The http_request address guard applies too. */
  SERVICE_SANDBOX_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== ''))
    .pipe(z.array(z.string().regex(HOST_PATTERN_RE, 'each entry must be a hostname or *.suffix'))),
  /** http_request tool: wall-clock limit of one call, redirects included, in milliseconds. */
  SERVICE_TOOL_HTTP_TIMEOUT_MS: int(10_000, 100, 600_000),
  /** http_request tool: response bytes read before the body is cut off (the model sees a truncation note). */
  SERVICE_TOOL_HTTP_MAX_RESPONSE_BYTES: int(1024 * 1024, 1024, 64 * 1024 * 1024),
  /** http_request tool: largest request body the model may send, in bytes. */
  SERVICE_TOOL_HTTP_MAX_REQUEST_BYTES: int(256 * 1024, 0, 64 * 1024 * 1024),
  /** http_request tool: allow loopback, private, link-local (cloud metadata) and other non-public
   * addresses. Off by default: a model steered by a prompt injection must not reach the host's
   * own services or the internal network (SSRF). */
  SERVICE_TOOL_HTTP_ALLOW_PRIVATE: z.enum(['true', 'false', '1', '0']).default('false').transform((v) => v === 'true' || v === '1'),
  /** http_request tool: comma-separated hostnames (`api.example.com`) or suffixes (`*.example.com`,
   * subdomains only) that may be called; empty: any public host. Agents can narrow it, never widen it. */
  SERVICE_TOOL_HTTP_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== ''))
    .pipe(z.array(z.string().regex(HOST_PATTERN_RE, 'each entry must be a hostname or *.suffix'))),
  /** invite_only (default) or open. Any other value is kept as given: the server still starts,
   * registration answers 500 registration_misconfigured, and `svc doctor` flags it. */
  SERVICE_REGISTRATION_MODE: z.string().default('invite_only'),
  /** Scheduler coordination: off (every replica schedules; one replica only), file-lock, or http. */
  SERVICE_SCHEDULER_LEADER_MODE: z.enum(['off', 'file-lock', 'http']).default('off'),
  /** Lock file for file-lock mode. Default: beside the database. */
  SERVICE_SCHEDULER_LOCK_PATH: z.string().min(1).optional(),
  /** Lease endpoint for http mode. */
  SERVICE_SCHEDULER_LEADER_URL: optionalUrl,
  /** Scheduler tick interval in milliseconds, ticks aligned to multiples of it (default 60000: on the
   * minute). For tests and tuning; at most a minute, so no cron minute is skipped. */
  SERVICE_SCHEDULER_TICK_MS: int(60_000, 100, 60_000),
  /** Provider accounts: comma-separated host names (`llm.lan`, `*.lan`), IP addresses or CIDRs
   * (`192.168.1.0/24`, `fd00::/8`) that a provider account's baseUrl may reach although they are
   * not public — a model server on the LAN. Every other account may only reach public addresses
   * (SSRF: any workspace admin can set a baseUrl). LOCAL_LLM_BASE_URL needs no entry. */
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
  /** Time to wait for an upstream model's first byte, and the longest silence between two chunks of
   * its answer (a stalled stream then ends with an error event), in milliseconds (long reasoning
   * calls are slow). */
  SERVICE_UPSTREAM_TIMEOUT_MS: int(600_000, 1000, 3_600_000),
  /** Queue workers inside `svc serve`. `auto` (default): 2 on SQLite — a one-process home lab runs
   * queued runs without a separate `svc worker` — and 0 on PostgreSQL, where `svc worker`
   * processes do the work. A number sets it; 0 means the web process never runs queued work. */
  SERVICE_EMBEDDED_WORKERS: z.union([z.literal('auto'), z.coerce.number().int().min(0).max(256)], { error: 'must be auto or a whole number from 0 to 256' }).default('auto'),
  /** How long a worker's claim on a job lasts without renewal (renewed every third of it). */
  SERVICE_JOB_LEASE_MS: int(30_000, 1000, 3_600_000),
  /** Relay that receives invitation emails to send (signed POST). Unset: no email is sent. */
  SERVICE_INVITATION_EMAIL_URL: optionalUrl,
  /** Log threshold. */
  SERVICE_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** Largest request body accepted on /api routes, in bytes. */
  SERVICE_BODY_LIMIT_BYTES: int(1024 * 1024, 1024, 1024 * 1024 * 1024),
  /** Largest request body accepted on /api/v1 (prompts with images are large), in bytes. */
  SERVICE_GATEWAY_BODY_LIMIT_BYTES: int(20 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  /** How long shutdown waits for in-flight requests before closing them, in milliseconds. */
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
