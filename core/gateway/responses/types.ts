/** Only what we emit; requests become ../types.ts's chat shapes. */
import type { ChatRequest } from '../../wire/openai.ts';

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';

export interface ResponsesFunctionTool {
  type: 'function';
  name: string;
  description: string | null;
  parameters: Record<string, unknown> | null;
  strict: boolean | null;
}

export type ResponsesToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; name: string };

export type ResponsesTextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; description?: string; strict?: boolean | null };

/** What the envelope must echo; never anything we refused. */
export interface ResponsesMeta {
  /** As the client named it; the envelope prefers the upstream's. */
  model: string;
  instructions: string | null;
  temperature: number | null;
  top_p: number | null;
  max_output_tokens: number | null;
  /** Absent means true (SPEC). */
  parallel_tool_calls: boolean;
  tools: ResponsesFunctionTool[];
  tool_choice: ResponsesToolChoice;
  text: { format: ResponsesTextFormat };
  reasoning: { effort: ReasoningEffort | null; summary: null };
  stream: boolean;
  user: string | undefined;
  service_tier: string | null;
  prompt_cache_key: string | null;
  prompt_cache_retention: string | null;
  safety_identifier: string | null;
}

export interface ParsedResponsesRequest {
  /** The route still sets stream_options.include_usage. */
  chat: ChatRequest;
  meta: ResponsesMeta;
}

/** Identity of one response: stable across every event of a stream. */
export interface ResponseIdentity {
  /** `resp_…` */
  id: string;
  /** Unix seconds. */
  createdAt: number;
}

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}
export interface OutputRefusal {
  type: 'refusal';
  refusal: string;
}
export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface OutputMessage {
  id: string;
  type: 'message';
  status: ItemStatus;
  role: 'assistant';
  content: (OutputText | OutputRefusal)[];
}
export interface OutputFunctionCall {
  id: string;
  type: 'function_call';
  status: ItemStatus;
  call_id: string;
  name: string;
  arguments: string;
}
export type OutputItem = OutputMessage | OutputFunctionCall;

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** A server-sent event before framing: `event:` name and its JSON `data`. */
export interface ResponsesEvent {
  event: string;
  data: { type: string; sequence_number: number; [k: string]: unknown };
}
