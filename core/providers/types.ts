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
  /** Decrypted; never logged. */
  apiKey: string | undefined;
  /** LOCAL_LLM_BASE_URL only: exempt from the address guard. */
  trusted?: boolean;
}

/** The result of a non-streamed chat call. */
export interface ChatResult {
  completion: ChatCompletion;
  /** Upstream text already in OpenAI's shape, sent as is. */
  raw?: string;
}

/** In OpenAI's error shape. Only `noWork` failures may be retried or fall back: others may be billed. */
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

/** `req.model` is the upstream id, prefix stripped. */
export interface ProviderEngine {
  chat(target: Target, req: ChatRequest, signal?: AbortSignal): Promise<ChatResult>;
  /** Resolves on status 200, so early errors throw here; usage comes last. */
  chatStream(target: Target, req: ChatRequest, signal?: AbortSignal): Promise<AsyncIterable<ChatChunk>>;
  embeddings(target: Target, req: EmbeddingsRequest, signal?: AbortSignal): Promise<EmbeddingsResponse>;
  /** Upstream model ids the account offers. */
  listModels(target: Target, signal?: AbortSignal): Promise<string[]>;
  supportsEmbeddings(provider: ProviderId): boolean;
  close(): Promise<void>;
}
