/**
 * What the scriptable fake model servers share: `up.script(…)` for every call, `up.once(…)` next.
 * Routing on the path's ending lets tests assert a provider's exact default path.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface FakeToolCall {
  id?: string;
  name: string;
  /** JSON text, as OpenAI sends it. */
  arguments: string;
}

export interface FakeUsage {
  /** Not cached (OpenAI: prompt_tokens = input + cached + cacheCreation). */
  input?: number;
  output?: number;
  /** Cache hits (OpenAI cached_tokens, Anthropic cache_read_input_tokens). */
  cached?: number;
  /** Anthropic cache writes (cache_creation_input_tokens). */
  cacheCreation?: number;
  /** OpenAI completion_tokens_details.reasoning_tokens (Anthropic reports none). */
  reasoning?: number;
}

export type FakeFault =
  | '5xx' // the provider's server error (OpenAI 500, Anthropic 529 overloaded unless `status`)
  | '429' // rate limited before any work, with `retryAfter`
  | 'hang' // accepts the request and never answers
  | 'reset' // streams `afterChunks` events then destroys the socket (non-stream: before any byte)
  | 'stream-error' // streams `afterChunks` events then the protocol's in-stream error event
  | 'stall'; // streams `afterChunks` events then goes silent, the connection left open

export interface FakeScript {
  text?: string;
  /** Stream pieces for the text; default: the text split after each space. */
  chunks?: string[];
  toolCalls?: FakeToolCall[];
  /** Anthropic thinking block text / OpenAI-compatible `reasoning_content`. */
  thinking?: string;
  usage?: FakeUsage;
  /** Upstream finish/stop reason in the protocol's own vocabulary. */
  finishReason?: string;
  /** The model name the fake reports (default: the requested one). */
  model?: string;
  /** Delay before the status line: a slow first byte. */
  latencyMs?: number;
  /** Delay between stream events (0 = all written at once). */
  chunkDelayMs?: number;
  /** Stream: headers sent at once, then this delay before the first event (a model thinking). */
  firstChunkDelayMs?: number;
  /** Stream: the first event waits for this, so "headers first" is testable without a timer. */
  firstChunkGate?: Promise<unknown>;
  fault?: FakeFault;
  afterChunks?: number;
  /** For '5xx' or `errorBody`; `retryAfter` goes with '429' and '5xx'. */
  status?: number;
  errorBody?: unknown;
  retryAfter?: string;
  /** OpenAI fake; 'last-chunk' is Mistral/Together style: usage on the final content chunk, always. */
  streamUsage?: 'standard' | 'last-chunk' | 'none';
  embeddingDims?: number;
  models?: string[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** Parsed JSON body (undefined when empty or not JSON). */
  body: any;
  raw: string;
  /** Stream events written so far for this request. */
  chunksSent: number;
  /** True once the client closed the connection before the response finished. */
  clientClosed: boolean;
  /** Resolves when the response ends or the connection closes, whichever first. */
  closed: Promise<void>;
}

export interface FakeUpstream {
  /** Base URL with the protocol's usual prefix, e.g. http://127.0.0.1:PORT/v1. */
  url: string;
  origin: string;
  requests: RecordedRequest[];
  readonly calls: number;
  /** Keep-alive reuse shows as fewer connections than calls. */
  readonly connections: number;
  /** Default script for every following call (merged over the protocol defaults). */
  script(s: FakeScript): void;
  /** Script for the next call only (queued; consumed in order). */
  once(s: FakeScript): void;
  reset(): void;
  close(): Promise<void>;
}

export interface FakeOptions {
  /** When set, calls without this key are refused with the protocol's 401. */
  apiKey?: string;
  /** Record requests (default true; benchmarks turn it off). */
  record?: boolean;
}

/** What a protocol module provides to the shared server. */
export interface Protocol {
  prefix: string;
  /** Body of an error in the protocol's shape. */
  errorBody(status: number, kind: 'auth' | 'server' | 'rate' | 'invalid' | 'notfound', message: string): unknown;
  /** True when it answered with the protocol's refusal. */
  checkAuth(req: RecordedRequest, res: ServerResponse, key: string | undefined): boolean;
  handle(req: RecordedRequest, res: ServerResponse, s: FakeScript): void | Promise<void>;
}

export async function startFake(proto: Protocol, opts: FakeOptions = {}): Promise<FakeUpstream> {
  let defaults: FakeScript = {};
  let queue: FakeScript[] = [];
  const requests: RecordedRequest[] = [];
  let calls = 0;
  let connections = 0;
  const sockets = new Set<Socket>();
  const record = opts.record ?? true;

  const server: Server = createServer((req, res) => {
    calls++;
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const raw = parts.length === 1 ? parts[0]!.toString() : Buffer.concat(parts).toString();
      let body: any;
      if (raw) {
        try {
          body = JSON.parse(raw);
        } catch {
          body = undefined;
        }
      }
      let resolveClosed!: () => void;
      const rec: RecordedRequest = {
        method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, raw,
        chunksSent: 0, clientClosed: false, closed: new Promise<void>((r) => (resolveClosed = r)),
      };
      res.on('close', () => {
        if (!res.writableFinished) rec.clientClosed = true;
        resolveClosed();
      });
      if (record) requests.push(rec);
      const s = { ...defaults, ...(queue.shift() ?? {}) };
      void serve(rec, res, s);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (s: Socket) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  async function serve(rec: RecordedRequest, res: ServerResponse, s: FakeScript) {
    if (s.latencyMs) await sleep(s.latencyMs);
    if (res.destroyed) return;
    if (proto.checkAuth(rec, res, opts.apiKey)) return;
    if (s.fault === 'hang') return;
    if (s.errorBody !== undefined) return sendJson(res, s.status ?? 400, s.errorBody);
    if (s.fault === '429') {
      const h: Record<string, string> = {};
      if (s.retryAfter !== undefined) h['retry-after'] = s.retryAfter;
      return sendJson(res, 429, proto.errorBody(429, 'rate', 'Rate limit reached. Please try again later.'), h);
    }
    if (s.fault === '5xx') {
      const status = s.status ?? 500;
      const h: Record<string, string> = s.retryAfter === undefined ? {} : { 'retry-after': s.retryAfter };
      return sendJson(res, status, proto.errorBody(status, 'server', 'The server had an error while processing your request.'), h);
    }
    if (s.fault === 'reset' && !rec.body?.stream) {
      res.socket?.destroy();
      return;
    }
    await proto.handle(rec, res, s);
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin + proto.prefix,
    origin,
    requests,
    get calls() {
      return calls;
    },
    get connections() {
      return connections;
    },
    script(s) {
      defaults = s;
    },
    once(s) {
      queue.push(s);
    },
    reset() {
      defaults = {};
      queue = [];
      requests.length = 0;
      calls = 0;
      connections = 0;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function notFound(proto: Protocol, res: ServerResponse, path: string) {
  sendJson(res, 404, proto.errorBody(404, 'notfound', `Unknown path ${path}`));
}

/** Synchronous without delay or fault: the zero-latency benchmark path. */
export async function writeStream(res: ServerResponse, rec: RecordedRequest, s: FakeScript, events: string[], errorEvent: string) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const cut = s.fault === 'reset' || s.fault === 'stream-error' || s.fault === 'stall' ? (s.afterChunks ?? 1) : Infinity;
  if (s.firstChunkDelayMs || s.firstChunkGate) {
    res.flushHeaders();
    if (s.firstChunkDelayMs) await sleep(s.firstChunkDelayMs);
    if (s.firstChunkGate) await s.firstChunkGate;
  }
  if (!s.chunkDelayMs && cut === Infinity) {
    for (const e of events) {
      res.write(e);
      rec.chunksSent++;
    }
    res.end();
    return;
  }
  for (let i = 0; i < events.length; i++) {
    if (res.destroyed) return;
    if (i === cut) {
      if (s.fault === 'stall') return; // nothing more, ever (close() destroys the socket)
      if (s.fault === 'stream-error') {
        res.end(errorEvent);
      } else {
        // Let what was written reach the client, then cut the connection mid-response.
        await new Promise<void>((r) => setImmediate(r));
        res.socket?.destroy();
      }
      return;
    }
    if (i > 0 && s.chunkDelayMs) await sleep(s.chunkDelayMs);
    if (res.destroyed) return;
    await new Promise<void>((r) => res.write(events[i]!, () => r()));
    rec.chunksSent++;
  }
  res.end();
}

/** Stream pieces of a text: the script's chunks, else the text split after each space. */
export function piecesOf(s: FakeScript, text: string): string[] {
  if (s.chunks) return s.chunks;
  return text.match(/[^ ]+ ?| /g) ?? [];
}

/** A deterministic unit-ish vector for an input string. */
export function vectorFor(input: string, dims: number): number[] {
  const out: number[] = [];
  let h = 2166136261;
  for (let i = 0; i < input.length; i++) h = Math.imul(h ^ input.charCodeAt(i), 16777619);
  for (let i = 0; i < dims; i++) {
    h = Math.imul(h ^ (h >>> 13), 0x5bd1e995);
    out.push(((h >>> 0) % 2000) / 1000 - 1);
  }
  return out;
}

/** Bound, then closed: connections are refused. */
export async function refusingUrl(prefix = '/v1'): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}${prefix}`;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export { fakeAnthropic } from './fake-anthropic.ts';
export { fakeOpenAi } from './fake-openai.ts';
