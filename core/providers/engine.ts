import type { ChatChunk, ChatCompletion, ChatRequest, EmbeddingsRequest, EmbeddingsResponse } from '../wire/openai.ts';
import { anthropicHeaders, toAnthropicRequest } from './anthropic/request.ts';
import { toChatCompletion } from './anthropic/response.ts';
import { anthropicChunks } from './anthropic/stream.ts';
import type { AnthropicResponse } from './anthropic/types.ts';
import { toBase64Embeddings } from './embeddings.ts';
import { badResponse, errorBody, httpError, transportError } from './errors.ts';
import { PROVIDERS } from './registry.ts';
import { openAiHeaders, toEmbeddingsRequest, toOpenAiRequest } from './openai-compatible/request.ts';
import { openAiChunks } from './openai-compatible/stream.ts';
import { addressPolicy } from '../net/address-guard.ts';
import { Pools } from './pools.ts';
import { callUpstream, type UpstreamBody, type UpstreamResponse } from './upstream-call.ts';
import type { Resolver } from '../net/http-guard.ts';
import { UpstreamError, type ChatResult, type ProviderEngine, type ProviderId, type Target } from './types.ts';

export interface EngineOptions {
  /** Default 600 s: reasoning calls send nothing until done. */
  headersTimeoutMs?: number;
  /** Longest silence between body chunks. Default 600 s. */
  bodyTimeoutMs?: number;
  /** Max sockets per upstream origin (default unbounded). */
  connections?: number;
  keepAliveTimeoutMs?: number;
  /** SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS (address-guard.ts). */
  allowedPrivateHosts?: readonly string[];
  /** DNS for the address guard; tests fake it. */
  resolve?: Resolver;
}

interface Endpoint {
  origin: string;
  prefix: string;
}

type Body = UpstreamBody;

/** Pools, the two wire protocols and OpenAI-shaped errors; retries are withSafeRetry's. */
export function createProviderEngine(opts: EngineOptions = {}): ProviderEngine {
  const pools = new Pools({
    connections: opts.connections,
    keepAliveTimeoutMs: opts.keepAliveTimeoutMs,
    policy: addressPolicy(opts.allowedPrivateHosts ?? []),
    resolve: opts.resolve,
  });
  const headersTimeout = opts.headersTimeoutMs ?? 600_000;
  const bodyTimeout = opts.bodyTimeoutMs ?? 600_000;
  const endpoints = new Map<string, Endpoint>();

  function endpoint(baseUrl: string): Endpoint {
    let e = endpoints.get(baseUrl);
    if (!e) {
      const u = new URL(baseUrl);
      e = { origin: u.origin, prefix: u.pathname.replace(/\/+$/, '') };
      endpoints.set(baseUrl, e);
    }
    return e;
  }

  /** One upstream call; resolves with a 2xx response, throws UpstreamError otherwise. */
  async function send(t: Target, method: 'GET' | 'POST', path: string, headers: Record<string, string>, body: string | null, signal: AbortSignal | undefined): Promise<Body> {
    const ep = endpoint(t.baseUrl);
    let res: UpstreamResponse;
    try {
      res = await callUpstream(await pools.get(ep.origin, t.trusted === true), { method, path: ep.prefix + path, headers, body, signal, headersTimeout, bodyTimeout });
    } catch (e) {
      throw transportError(t.provider, e, signal);
    }
    if (res.statusCode >= 200 && res.statusCode < 300) return res.body;
    let text = '';
    try {
      text = await res.body.text();
    } catch {
      // The status is what matters; a body cut short changes nothing.
    }
    throw httpError(t.provider, res.statusCode, res.headers, text, [t.apiKey]);
  }

  async function readText(t: Target, body: Body, signal: AbortSignal | undefined): Promise<string> {
    try {
      return await body.text();
    } catch (e) {
      throw transportError(t.provider, e, signal);
    }
  }

  function parse<T>(t: Target, text: string): T {
    try {
      return JSON.parse(text) as T;
    } catch {
      throw badResponse(t.provider, 'a body that is not JSON');
    }
  }

  async function* decoded(t: Target, body: Body, signal: AbortSignal | undefined): AsyncGenerator<string> {
    try {
      for await (const s of body) yield s; // UTF-8 decoded across chunk boundaries
    } catch (e) {
      throw transportError(t.provider, e, signal);
    } finally {
      // The client left: closing the upstream connection too.
      if (!body.readableEnded) body.destroy();
    }
  }

  const isAnthropic = (p: ProviderId) => PROVIDERS[p].protocol === 'anthropic';

  return {
    async chat(t, req, signal) {
      if (isAnthropic(t.provider)) {
        const body = await send(t, 'POST', '/messages', anthropicHeaders(t.apiKey, false), JSON.stringify(toAnthropicRequest(req, false)), signal);
        const r = parse<AnthropicResponse>(t, await readText(t, body, signal));
        if (!Array.isArray(r?.content)) throw badResponse(t.provider, 'a message without content');
        return { completion: toChatCompletion(r) };
      }
      const upstream = toOpenAiRequest(PROVIDERS[t.provider].quirks, req, false);
      const body = await send(t, 'POST', '/chat/completions', openAiHeaders(t.apiKey, false), JSON.stringify(upstream), signal);
      const raw = await readText(t, body, signal);
      const completion = parse<ChatCompletion>(t, raw);
      if (!Array.isArray(completion?.choices)) throw badResponse(t.provider, 'a completion without choices');
      return { completion, raw } satisfies ChatResult;
    },

    async chatStream(t, req, signal): Promise<AsyncIterable<ChatChunk>> {
      if (isAnthropic(t.provider)) {
        const body = await send(t, 'POST', '/messages', anthropicHeaders(t.apiKey, true), JSON.stringify(toAnthropicRequest(req, true)), signal);
        return anthropicChunks(t.provider, decoded(t, body, signal));
      }
      const upstream = toOpenAiRequest(PROVIDERS[t.provider].quirks, req, true);
      const body = await send(t, 'POST', '/chat/completions', openAiHeaders(t.apiKey, true), JSON.stringify(upstream), signal);
      // No `decoded` layer: this is the hot path.
      return openAiChunks(t.provider, body, (e) => transportError(t.provider, e, signal));
    },

    async embeddings(t, req: EmbeddingsRequest, signal): Promise<EmbeddingsResponse> {
      const spec = PROVIDERS[t.provider];
      if (!spec.embeddings) {
        const msg = `The ${t.provider} provider offers no embeddings for model "${req.model}".`;
        throw new UpstreamError(400, errorBody(msg, 'invalid_request_error', 'embeddings_not_supported', 'model'), { noWork: false });
      }
      const body = await send(t, 'POST', '/embeddings', openAiHeaders(t.apiKey, false), JSON.stringify(toEmbeddingsRequest(spec.quirks, req)), signal);
      const r = parse<EmbeddingsResponse>(t, await readText(t, body, signal));
      if (!Array.isArray(r?.data)) throw badResponse(t.provider, 'embeddings without data');
      return req.encoding_format === 'base64' ? toBase64Embeddings(r) : r;
    },

    async listModels(t, signal) {
      if (isAnthropic(t.provider)) return listAnthropicModels(t, signal);
      const body = await send(t, 'GET', '/models', openAiHeaders(t.apiKey, false), null, signal);
      const r = parse<{ data?: { id?: unknown }[] }>(t, await readText(t, body, signal));
      const strip = PROVIDERS[t.provider].quirks.modelIdPrefix;
      return idsOf(r, strip);
    },

    supportsEmbeddings: (p) => PROVIDERS[p].embeddings,

    close: () => pools.close(),
  };

  /** Anthropic pages its catalogue (`has_more`, `last_id`); bounded to 20 pages of 1000. */
  async function listAnthropicModels(t: Target, signal: AbortSignal | undefined): Promise<string[]> {
    const ids: string[] = [];
    let after = '';
    for (let page = 0; page < 20; page++) {
      const path = `/models?limit=1000${after ? `&after_id=${encodeURIComponent(after)}` : ''}`;
      const body = await send(t, 'GET', path, anthropicHeaders(t.apiKey, false), null, signal);
      const r = parse<{ data?: { id?: unknown }[]; has_more?: boolean; last_id?: string }>(t, await readText(t, body, signal));
      ids.push(...idsOf(r));
      if (!r.has_more || !r.last_id) break;
      after = r.last_id;
    }
    return ids;
  }
}

function idsOf(r: { data?: { id?: unknown }[] }, strip?: string): string[] {
  if (!Array.isArray(r?.data)) return [];
  const out: string[] = [];
  for (const m of r.data) {
    if (typeof m?.id !== 'string') continue;
    out.push(strip && m.id.startsWith(strip) ? m.id.slice(strip.length) : m.id);
  }
  return out;
}
