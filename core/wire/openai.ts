/** Chat Completions shapes every adapter translates to; untyped fields pass through untouched. */

export type ChatRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface ChatContentPartText {
  type: 'text';
  text: string;
}
export interface ChatContentPartImage {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}
export type ChatContentPart = ChatContentPartText | ChatContentPartImage | { type: string; [k: string]: unknown };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: ChatRole;
  content?: string | ChatContentPart[] | null;
  name?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  [k: string]: unknown;
}

export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; schema?: Record<string, unknown>; description?: string; strict?: boolean | null } };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  temperature?: number | null;
  top_p?: number | null;
  seed?: number | null;
  user?: string;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  tools?: ChatTool[];
  tool_choice?: 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };
  parallel_tool_calls?: boolean;
  response_format?: ResponseFormat;
  reasoning_effort?: 'minimal' | 'low' | 'medium' | 'high' | null;
  stop?: string | string[] | null;
  [k: string]: unknown;
}

/** OpenAI usage, with the splits the gateway records. */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; [k: string]: unknown };
  completion_tokens_details?: { reasoning_tokens?: number; [k: string]: unknown };
  [k: string]: unknown;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call' | null;

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[]; refusal?: string | null; [k: string]: unknown };
    finish_reason: FinishReason;
    logprobs?: unknown;
  }[];
  usage?: ChatUsage;
  [k: string]: unknown;
}

export interface ChatChunkToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

/** Early usage (a symbol, so never serialised): abandoning a stream must not dodge input tokens. */
export const PARTIAL_USAGE: unique symbol = Symbol('partialUsage');

/** The chunk's upstream JSON, written as is; change a chunk only by building a new one. */
export const RAW_JSON: unique symbol = Symbol('rawJson');

export interface ChatChunk {
  [PARTIAL_USAGE]?: ChatUsage;
  [RAW_JSON]?: string;
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: {
    index: number;
    delta: { role?: 'assistant'; content?: string | null; tool_calls?: ChatChunkToolCallDelta[]; refusal?: string | null; [k: string]: unknown };
    finish_reason: FinishReason;
  }[];
  usage?: ChatUsage | null;
  [k: string]: unknown;
}

export interface EmbeddingsRequest {
  model: string;
  input: string | string[] | number[] | number[][];
  encoding_format?: 'float' | 'base64';
  dimensions?: number;
  user?: string;
}

export interface EmbeddingsResponse {
  object: 'list';
  data: { object: 'embedding'; index: number; embedding: number[] | string }[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

/** The token splits the gateway records for every served call. */
export interface UsageSplits {
  inputTokens: number;
  cachedTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  totalTokens: number;
}

export function splitsOf(u: ChatUsage | undefined | null): UsageSplits {
  const input = u?.prompt_tokens ?? 0;
  const output = u?.completion_tokens ?? 0;
  return {
    inputTokens: input,
    cachedTokens: u?.prompt_tokens_details?.cached_tokens ?? 0,
    outputTokens: output,
    reasoningTokens: u?.completion_tokens_details?.reasoning_tokens ?? 0,
    totalTokens: u?.total_tokens ?? input + output,
  };
}

/** OpenAI's error body. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}
