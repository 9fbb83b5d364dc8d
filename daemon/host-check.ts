import { AppError } from '../core/kernel/errors.ts';

/**
 * Against DNS rebinding, only our own host names (docs/operations.md).
 * Free of Hono, so the fast lane applies the same rules.
 */
export type HostKind = 'app' | 'preview' | 'loopback';

interface HostName {
  hostname: string;
  port: number | undefined;
}

// host[:port]; userinfo, paths, duplicated-header lists and spaces never match.
const HOST_RE = /^(?:(\[[0-9a-f:.]+\])|([a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?))(?::(\d{1,5}))?$/i;

/** Normalised as a URL would, one trailing dot dropped; undefined if malformed. */
export function parseHost(value: string | undefined): HostName | undefined {
  if (value === undefined || value.length > 300) return undefined;
  const m = HOST_RE.exec(value);
  if (!m) return undefined;
  let hostname: string;
  try {
    hostname = new URL(`http://${m[1] ?? m[2]}`).hostname;
  } catch {
    return undefined;
  }
  if (hostname.endsWith('.')) hostname = hostname.slice(0, -1);
  const port = m[3] === undefined ? undefined : Number(m[3]);
  if (hostname === '' || (port !== undefined && port > 65535)) return undefined;
  return { hostname, port };
}

interface Origin {
  hostname: string;
  port: number;
  /** scheme://host[:port] as browsers serialise an Origin header. */
  serialized: string;
}

function parseOrigin(value: string): Origin | undefined {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  const hostname = u.hostname.endsWith('.') ? u.hostname.slice(0, -1) : u.hostname;
  const port = u.port === '' ? (u.protocol === 'https:' ? 443 : 80) : Number(u.port);
  return { hostname, port, serialized: `${u.protocol}//${hostname}${u.port === '' ? '' : `:${u.port}`}` };
}

/** Same name, and the same port if the Host gives one. */
const names = (h: HostName, o: Origin) => h.hostname === o.hostname && (h.port === undefined || h.port === o.port);

export function isLoopbackName(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

export type HostClassifier = (host: string | undefined) => HostKind | null;

/** App, then preview (preview.localhost is also loopback), then loopback; else null. */
export function hostClassifier(appOrigin: string, previewOrigin: string): HostClassifier {
  const app = parseOrigin(appOrigin);
  const preview = parseOrigin(previewOrigin);
  const classify = (value: string | undefined): HostKind | null => {
    const h = parseHost(value);
    if (!h) return null;
    if (app && names(h, app)) return 'app';
    if (preview && names(h, preview)) return 'preview';
    return isLoopbackName(h.hostname) ? 'loopback' : null;
  };
  // Keeps URL parsing off the hot path; bounded against random Hosts.
  const seen = new Map<string, HostKind | null>();
  return (value) => {
    if (value === undefined) return null;
    let kind = seen.get(value);
    if (kind === undefined) {
      kind = classify(value);
      if (seen.size >= 256) seen.clear();
      seen.set(value, kind);
    }
    return kind;
  };
}

export interface RequestFacts {
  method: string;
  path: string;
  host: string | undefined;
  forwardedHost: string | undefined;
  origin: string | undefined;
}

export interface HostPolicyConfig {
  SERVICE_APP_ORIGIN: string;
  SERVICE_PREVIEW_ORIGIN: string;
  SERVICE_TRUST_PROXY: boolean;
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// Balancers probe with any Host; probes reveal nothing, so any passes.
const PROBES = new Set(['/api/health', '/api/health/live', '/api/health/ready']);
// The path is the credential: nothing ambient to borrow, Origin unchecked.
const PATH_CREDENTIAL = '/api/public/webhooks/';

export const misdirected = () =>
  new AppError('misdirected_request', 'This service does not answer for this host name. Reach it at its SERVICE_APP_ORIGIN (or a loopback name), or set SERVICE_APP_ORIGIN to the address clients use.');
export const originRefused = () =>
  new AppError('origin_refused', 'Cross-origin request refused: state-changing requests must come from the app origin (SERVICE_APP_ORIGIN).');

/**
 * The error to answer (421, 403), or the host kind; rules in docs/operations.md.
 * A forwarded Host can only refuse more.
 */
export function hostPolicy(config: HostPolicyConfig): (req: RequestFacts) => HostKind | AppError {
  const classify = hostClassifier(config.SERVICE_APP_ORIGIN, config.SERVICE_PREVIEW_ORIGIN);
  const app = parseOrigin(config.SERVICE_APP_ORIGIN);
  return (req) => {
    const probe = (req.method === 'GET' || req.method === 'HEAD') && PROBES.has(req.path);
    const kind = classify(req.host);
    if (kind === null) return probe ? 'loopback' : misdirected();
    if (config.SERVICE_TRUST_PROXY && req.forwardedHost !== undefined) {
      const last = req.forwardedHost.split(',').at(-1)!.trim();
      if (classify(last) === null && !probe) return misdirected();
    }
    if (req.origin !== undefined && STATE_CHANGING.has(req.method) && !req.path.startsWith(PATH_CREDENTIAL)) {
      const o = parseOrigin(req.origin); // 'null' (sandboxed frames, some redirects) does not parse
      const ok = o !== undefined && ((app !== undefined && o.serialized === app.serialized) || (kind === 'loopback' && sameHost(req.host, o)));
      if (!ok) return originRefused();
    }
    return kind;
  };
}

/** The very host requested; a Host without a port takes the Origin's. */
function sameHost(host: string | undefined, o: Origin): boolean {
  const h = parseHost(host);
  return h !== undefined && names(h, o);
}
