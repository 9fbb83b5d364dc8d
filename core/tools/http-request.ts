import * as z from 'zod';
import { HOST_PATTERN_RE } from '../kernel/config/schema.ts';
import { systemResolver, vetUrl, type Resolver } from '../net/http-guard.ts';
import { sendHop, type HopResponse } from './http-hop.ts';
import { formatResult, redact } from './http-result.ts';
import { classifyAddress, type AddressClass } from '../net/net-address.ts';
import type { ToolContext, ToolDefinition } from './types.ts';

/** Failures come back as `error: …` text; only an abort of the run throws. */

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
export const MAX_REDIRECTS = 5;

/** RFC 9110 §7.6.1 or undici's own: a model's value would desync them. */
export const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade',
  'proxy-authenticate', 'proxy-authorization', 'host', 'content-length', 'expect',
]);

/** Never shown to the model; dropped on cross-origin redirects. */
export const isCredentialHeader = (name: string) => /auth|cookie|key|token|secret|password|session/i.test(name);

const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/, 'invalid header name');
// No CR/LF/NUL (header injection); latin-1, as on the wire.
const headerValue = z.string().max(8192).regex(/^[\t\x20-\x7e\x80-\xff]*$/, 'header values may not contain control or non-latin-1 characters');
const headerMap = z.record(headerName, headerValue).refine((h) => Object.keys(h).length <= 64, 'at most 64 headers');

export const httpRequestArgs = z.strictObject({
  method: z.enum(METHODS),
  url: z.string().min(1).max(8192),
  headers: headerMap.optional(),
  body: z.string().optional(),
});

export const httpRequestConfig = z
  .strictObject({
    /** Narrows SERVICE_TOOL_HTTP_ALLOWED_HOSTS for this agent. */
    allowedHosts: z
      .array(z.string().transform((h) => h.trim().toLowerCase()).pipe(z.string().regex(HOST_PATTERN_RE, 'must be a hostname or *.suffix')))
      .max(100)
      .optional(),
    /** The model's own headers override them by name. */
    defaultHeaders: headerMap
      .refine((h) => !Object.keys(h).some((n) => HOP_BY_HOP.has(n.toLowerCase())), 'hop-by-hop headers and Host cannot be set')
      .optional(),
  })
  .refine(
    (c) => !Object.keys(c.defaultHeaders ?? {}).some(isCredentialHeader) || (c.allowedHosts?.length ?? 0) > 0,
    { message: 'defaultHeaders with credentials need allowedHosts, or the model could send them to any host', path: ['allowedHosts'] },
  );

export type HttpRequestConfig = z.infer<typeof httpRequestConfig>;

const parameters = {
  type: 'object',
  additionalProperties: false,
  required: ['method', 'url'],
  properties: {
    method: { type: 'string', enum: [...METHODS], description: 'HTTP method.' },
    url: { type: 'string', description: 'Absolute http:// or https:// URL.' },
    headers: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Request headers (name → value). Connection-level headers and Host are ignored.',
    },
    body: { type: 'string', description: 'Request body as text (for JSON, a JSON string). Not allowed with GET or HEAD.' },
  },
};

export interface HttpRequestDeps {
  /** Hostname → addresses (default: the system resolver, every address). */
  resolve?: Resolver;
  /** Only 'public' passes unless private addresses are allowed. */
  classify?: (ip: string) => AddressClass;
}

export function createHttpRequestTool(deps: HttpRequestDeps = {}): ToolDefinition<HttpRequestConfig> {
  const resolve = deps.resolve ?? systemResolver;
  const classify = deps.classify ?? classifyAddress;
  return {
    type: 'http_request',
    description:
      'Make one HTTP request to a public http(s) URL and get back the status, content type and body (text; large bodies are truncated). Redirects are followed.',
    parameters,
    config: httpRequestConfig,
    async execute(rawArgs, rawConfig, ctx) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const secrets: string[] = [];
      try {
        return redact(await run(rawArgs, rawConfig, ctx, resolve, classify, secrets), secrets);
      } catch (err) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        throw err;
      }
    },
  };
}

export const httpRequestTool = createHttpRequestTool();

async function run(
  rawArgs: unknown,
  rawConfig: unknown,
  ctx: ToolContext,
  resolve: Resolver,
  classify: (ip: string) => AddressClass,
  secrets: string[],
): Promise<string> {
  const parsed = httpRequestArgs.safeParse(rawArgs);
  if (!parsed.success) return `error: invalid arguments: ${describeIssues(parsed.error)}`;
  const cfg = httpRequestConfig.safeParse(rawConfig ?? {});
  if (!cfg.success) return `error: the tool is misconfigured for this agent: ${describeIssues(cfg.error)}`;
  const args = parsed.data;
  const { limits } = ctx;

  let url: URL;
  try {
    url = new URL(args.url);
  } catch {
    return 'error: invalid arguments: url is not an absolute URL';
  }
  if (args.body !== undefined && (args.method === 'GET' || args.method === 'HEAD')) {
    return `error: invalid arguments: a ${args.method} request cannot have a body`;
  }
  const bodyBytes = args.body === undefined ? 0 : Buffer.byteLength(args.body, 'utf8');
  if (bodyBytes > limits.httpMaxRequestBytes) {
    return `error: request body is ${bodyBytes} bytes; the limit is ${limits.httpMaxRequestBytes}`;
  }

  const notes: string[] = [];
  let headers = mergeHeaders(cfg.data.defaultHeaders ?? {}, args.headers ?? {}, notes);
  for (const [name, value] of Object.entries(headers)) {
    if (isCredentialHeader(name)) secrets.push(value, value.replace(/^\S+\s+/, ''));
  }
  if (args.body !== undefined && !Object.keys(headers).some((n) => n.toLowerCase() === 'content-type')) {
    headers['content-type'] = looksLikeJson(args.body) ? 'application/json' : 'text/plain; charset=utf-8';
  }
  if (!Object.keys(headers).some((n) => n.toLowerCase() === 'user-agent')) headers['user-agent'] = 'svc-http-request/1';

  const timeout = AbortSignal.timeout(limits.httpTimeoutMs);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  const allowLists = [limits.httpAllowedHosts, cfg.data.allowedHosts ?? []];
  let method: string = args.method;
  let body = args.body;
  const redirects: string[] = [];
  try {
    for (;;) {
      const vetted = await vetUrl(url, { allowPrivate: limits.httpAllowPrivate, allowLists, resolve, classify, signal });
      if (!vetted.ok) return `error: ${vetted.error}${redirects.length ? ` (redirected from ${redirects[0]})` : ''}`;
      const res: HopResponse = await sendHop({
        url, method, headers, body, addresses: vetted.addresses, maxResponseBytes: limits.httpMaxResponseBytes, signal,
      });
      const location = res.headers.location;
      if (![301, 302, 303, 307, 308].includes(res.status) || typeof location !== 'string') {
        return formatResult({ response: res, method, finalUrl: url.href, redirects, maxResponseBytes: limits.httpMaxResponseBytes, notes });
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        return formatResult({ response: res, method, finalUrl: url.href, redirects, maxResponseBytes: limits.httpMaxResponseBytes, notes: [...notes, 'redirect not followed: invalid Location'] });
      }
      if (redirects.length >= MAX_REDIRECTS) return `error: too many redirects (more than ${MAX_REDIRECTS}); the last one pointed to ${next.href}`;
      redirects.push(url.href);
      // Fetch semantics: 303 (and 301/302 after POST) turn into a body-less GET.
      if ((res.status === 303 && method !== 'HEAD') || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        headers = withoutHeaders(headers, (n) => n === 'content-type');
      }
      if (next.origin !== url.origin) {
        const before = Object.keys(headers).length;
        headers = withoutHeaders(headers, isCredentialHeader);
        if (Object.keys(headers).length < before) notes.push(`credential headers were not sent to ${next.origin} (redirect to another origin)`);
      }
      url = next;
    }
  } catch (err) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (timeout.aborted) return `error: timed out after ${limits.httpTimeoutMs} ms (${method} ${url.href})`;
    return `error: ${describeNetworkError(err, url)}`;
  }
}

function mergeHeaders(defaults: Record<string, string>, given: Record<string, string>, notes: string[]): Record<string, string> {
  const out = new Map<string, [string, string]>();
  for (const src of [defaults, given]) {
    for (const [name, value] of Object.entries(src)) out.set(name.toLowerCase(), [name, value]);
  }
  const dropped: string[] = [];
  const headers: Record<string, string> = {};
  for (const [lower, [name, value]] of out) {
    if (HOP_BY_HOP.has(lower)) dropped.push(lower);
    else headers[name] = value;
  }
  if (dropped.length) notes.push(`ignored connection-level headers: ${dropped.join(', ')}`);
  return headers;
}

function withoutHeaders(h: Record<string, string>, drop: (lowerName: string) => boolean): Record<string, string> {
  return Object.fromEntries(Object.entries(h).filter(([n]) => !drop(n.toLowerCase())));
}

function looksLikeJson(s: string): boolean {
  const t = s.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return false;
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

/** Never echoes values: a header value may be a credential. */
function describeIssues(e: z.ZodError): string {
  return e.issues.map((i) => `${i.path.length ? i.path.join('.') : 'arguments'}: ${i.message}`).join('; ');
}

function describeNetworkError(err: unknown, url: URL): string {
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = e.code ?? e.cause?.code ?? '';
  const where = `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused by ${where}`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return `connection to ${where} was closed before a complete response`;
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return `connecting to ${where} timed out`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${where} is unreachable (${code})`;
    default:
      if (/CERT|TLS|SSL/.test(code)) return `TLS error with ${where}: ${e.message}`;
      return `request to ${where} failed${code ? ` (${code})` : ''}: ${e.message ?? String(err)}`;
  }
}
