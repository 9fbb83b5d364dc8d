import { AppError } from '../core/kernel/errors.ts';

/**
 * DNS rebinding (issue 12): a web page can point its own name at 127.0.0.1 and then talk to a
 * local svc as a same-origin page — register the bootstrap owner of a fresh install, read answers.
 * The browser still sends the page's name as Host, so svc answers only the names it is meant to
 * be reached by: the app origin, the preview origin, and loopback names. Kept free of Hono so the
 * node:http fast path uses the same rules, and the preview dispatch can reuse the classifier.
 */
export type HostKind = 'app' | 'preview' | 'loopback';

interface HostName {
  hostname: string;
  port: number | undefined;
}

// host [":" port]: a registered name or IPv4 literal, or an IPv6 literal in brackets. Anything else
// (userinfo, a path, a list from duplicated Host headers, spaces) is not a Host we answer.
const HOST_RE = /^(?:(\[[0-9a-f:.]+\])|([a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?))(?::(\d{1,5}))?$/i;

/** A Host (or X-Forwarded-Host) value as hostname and port, normalised as a URL would (lower
 * case, IPv4 in dotted form, IPv6 compressed) with one trailing dot dropped; undefined if malformed. */
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

/** A Host names an origin when the names match and the port, if given, is the origin's. */
const names = (h: HostName, o: Origin) => h.hostname === o.hostname && (h.port === undefined || h.port === o.port);

export function isLoopbackName(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

export type HostClassifier = (host: string | undefined) => HostKind | null;

/** Which of our origins a Host value names: the app origin first, then the preview origin (the
 * default preview.localhost is also a loopback name), then any loopback name; null for others. */
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
  // A service sees a handful of Host values: remembering them keeps URL parsing off the hot path
  // (the gateway's fast lane). Bounded, so a client sending random Hosts only costs a clear.
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
// Liveness and readiness probes carry whatever Host the orchestrator or balancer sends (often the
// replica's IP): they answer nothing a rebinding page could use, so they are answered for any Host.
const PROBES = new Set(['/api/health', '/api/health/live', '/api/health/ready']);
// Paths whose credential is in the path, called by other sites' servers or pages: no ambient
// credential a cross-site request could borrow, so their Origin is not checked.
const PATH_CREDENTIAL = '/api/public/webhooks/';

export const misdirected = () =>
  new AppError('misdirected_request', 'This service does not answer for this host name. Reach it at its SERVICE_APP_ORIGIN (or a loopback name), or set SERVICE_APP_ORIGIN to the address clients use.');
export const originRefused = () =>
  new AppError('origin_refused', 'Cross-origin request refused: state-changing requests must come from the app origin (SERVICE_APP_ORIGIN).');

/**
 * The host check of every request (both HTTP paths): returns the error to answer with, or the
 * kind of host. A Host that names none of our origins → 421. Behind a trusted proxy
 * (SERVICE_TRUST_PROXY) the last X-Forwarded-For-style X-Forwarded-Host entry must pass too — it
 * can only refuse more, so a client that sends its own gains nothing. A state-changing request
 * with an Origin header must come from the app origin, or — for a loopback name — from the very
 * host it was sent to (a same-origin form on http://127.0.0.1:8484); `null` and the rest → 403.
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

/** The Origin is the very host the request was sent to (its port, when the Host omits it, is the Origin's). */
function sameHost(host: string | undefined, o: Origin): boolean {
  const h = parseHost(host);
  return h !== undefined && names(h, o);
}
