import type { StreamEnd } from './tracked.ts';
import { splitsOf, type ChatRequest, type UsageSplits } from '../wire/openai.ts';

/**
 * Streams without upstream usage still count against quotas (docs/limits.md).
 * No tokenizer is shipped: OpenAI's English rule of thumb, flagged as an estimate.
 */
export const CHARS_PER_TOKEN = 4;

export const tokensFor = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);

/** The usage to record for a stream: the upstream's when it arrived, else an estimate. */
export function streamUsage(req: ChatRequest, end: StreamEnd): { splits: UsageSplits; estimated: boolean } {
  if (end.usage) return { splits: splitsOf(end.usage), estimated: false };
  const p = end.partial; // Anthropic's exact input count, sent before the first token
  const input = p?.prompt_tokens ?? tokensFor(promptChars(req));
  const output = Math.max(p?.completion_tokens ?? 0, tokensFor(end.deliveredChars));
  return {
    splits: { inputTokens: input, cachedTokens: p?.prompt_tokens_details?.cached_tokens ?? 0, outputTokens: output, reasoningTokens: 0, totalTokens: input + output },
    estimated: true,
  };
}

/** Characters the upstream read: message text, tool calls, tool definitions. */
export function promptChars(req: ChatRequest): number {
  let n = 0;
  for (const m of req.messages) {
    const c = m.content;
    if (typeof c === 'string') n += c.length;
    else if (Array.isArray(c)) for (const part of c) if (typeof (part as { text?: unknown }).text === 'string') n += (part as { text: string }).text.length;
    if (Array.isArray(m.tool_calls)) for (const t of m.tool_calls) n += String(t?.function?.arguments ?? '').length + String(t?.function?.name ?? '').length;
  }
  if (req.tools !== undefined) n += JSON.stringify(req.tools).length; // depth is bounded at the door
  return n;
}
