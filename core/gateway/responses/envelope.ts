/**
 * Shared by the envelope and every stream event: the SDK checks `id`.
 * No `output_text`: the SDKs compute it, and OpenAI does not send it.
 */
import { newId } from '../../kernel/ids.ts';
import { splitsOf, type ChatUsage, type FinishReason } from '../../wire/openai.ts';
import type { OutputItem, ResponseIdentity, ResponseStatus, ResponsesMeta, ResponsesUsage } from './types.ts';

export function newResponseIdentity(nowMs: number = Date.now()): ResponseIdentity {
  return { id: newId('resp'), createdAt: Math.floor(nowMs / 1000) };
}

export function toResponsesUsage(u: ChatUsage | null | undefined): ResponsesUsage {
  const s = splitsOf(u);
  return {
    input_tokens: s.inputTokens,
    input_tokens_details: { cached_tokens: s.cachedTokens },
    output_tokens: s.outputTokens,
    output_tokens_details: { reasoning_tokens: s.reasoningTokens },
    total_tokens: s.totalTokens,
  };
}

/** finish_reason → terminal status; only length and content_filter leave a response incomplete. */
export function terminalOf(finish: FinishReason | undefined): { status: 'completed' | 'incomplete'; reason: string | null } {
  if (finish === 'length') return { status: 'incomplete', reason: 'max_output_tokens' };
  if (finish === 'content_filter') return { status: 'incomplete', reason: 'content_filter' };
  return { status: 'completed', reason: null };
}

export interface ResponseState {
  status: ResponseStatus;
  output: OutputItem[];
  /** Names the served snapshot, e.g. for service/conduit. */
  model?: string | undefined;
  usage?: ResponsesUsage | null;
  incompleteReason?: string | null;
  error?: { code: string; message: string } | null;
  serviceTier?: string | null | undefined;
  completedAtMs?: number | undefined;
}

export function responseObject(meta: ResponsesMeta, ident: ResponseIdentity, st: ResponseState): Record<string, unknown> {
  const r: Record<string, unknown> = {
    id: ident.id,
    object: 'response',
    created_at: ident.createdAt,
    status: st.status,
    background: false,
    completed_at: st.status === 'completed' && st.completedAtMs !== undefined ? Math.floor(st.completedAtMs / 1000) : null,
    error: st.error ?? null,
    incomplete_details: st.incompleteReason ? { reason: st.incompleteReason } : null,
    instructions: meta.instructions,
    max_output_tokens: meta.max_output_tokens,
    max_tool_calls: null,
    model: st.model || meta.model,
    output: st.output,
    parallel_tool_calls: meta.parallel_tool_calls,
    previous_response_id: null,
    prompt_cache_key: meta.prompt_cache_key,
    prompt_cache_retention: meta.prompt_cache_retention,
    reasoning: meta.reasoning,
    safety_identifier: meta.safety_identifier,
    service_tier: st.serviceTier ?? meta.service_tier,
    store: false,
    temperature: meta.temperature,
    text: meta.text,
    tool_choice: meta.tool_choice,
    tools: meta.tools,
    top_logprobs: null,
    top_p: meta.top_p,
    truncation: 'disabled',
    usage: st.usage ?? null,
    // Required by the SDK's type; metadata is refused, so always empty.
    metadata: {},
    access_programs: null,
  };
  if (meta.user !== undefined) r.user = meta.user;
  return r;
}
