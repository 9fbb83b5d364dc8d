import type { ChatChunk, ChatCompletion, ChatRequest, EmbeddingsRequest, EmbeddingsResponse, OpenAiErrorBody } from '../wire/openai.ts';

export const PROVIDER_IDS = [
  'openai',
  'anthropic',
  'gemini',
  'openrouter',
  'groq',
  'mistral',
  'deepseek',
  'together',
  'openai-compatible',
  'local',
] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** A resolved provider account: where to send a call and with which key. */
export interface Target {
  accountId: string;
  provider: ProviderId;
  /** API base, e.g. https://api.openai.com/v1 (no trailing slash). */
  baseUrl: string;
  /** Decrypted API key; never logged. Undefined for keyless targets (local). */
  apiKey: string | undefined;
  /** The operator's own target (LOCAL_LLM_BASE_URL): exempt from the address guard. Only the
   * local account sets it; every workspace's accounts are guarded. */
  trusted?: boolean;
}

/** The result of a non-streamed chat call. */
export interface ChatResult {
  completion: ChatCompletion;
  /** Upstream body text when it is already the OpenAI shape and may be sent as-is (fast path). */
  raw?: string;
}

/**
 * A failure from (or on the way to) an upstream, already in OpenAI's error shape.
 * `noWork` is true only when the provider provably did no work (connection refused, DNS failure,
 * 429 before processing): only then may the gateway retry or fall back. Anything else — a timeout
 * after the request was sent, a reset mid-response, a 5xx — may have been served and billed.
 */
export class UpstreamError extends Error {
  readonly status: number;
  readonly body: OpenAiErrorBody;
  readonly noWork: boolean;
  readonly retryAfterMs: number | undefined;
  constructor(status: number, body: OpenAiErrorBody, opts: { noWork: boolean; retryAfterMs?: number; cause?: unknown }) {
    super(body.error.message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'UpstreamError';
    this.status = status;
    this.body = body;
    this.noWork = opts.noWork;
    this.retryAfterMs = opts.retryAfterMs;
  }
}

/** The one engine every provider runs on. `req.model` is the upstream model id (prefix stripped). */
export interface ProviderEngine {
  chat(target: Target, req: ChatRequest, signal?: AbortSignal): Promise<ChatResult>;
  /** Resolves once the upstream accepted the stream (status 200), so errors before the first
   * byte surface as UpstreamError; chunks follow as they arrive, the usage chunk last. */
  chatStream(target: Target, req: ChatRequest, signal?: AbortSignal): Promise<AsyncIterable<ChatChunk>>;
  embeddings(target: Target, req: EmbeddingsRequest, signal?: AbortSignal): Promise<EmbeddingsResponse>;
  /** Upstream model ids the account offers. */
  listModels(target: Target, signal?: AbortSignal): Promise<string[]>;
  supportsEmbeddings(provider: ProviderId): boolean;
  close(): Promise<void>;
}
