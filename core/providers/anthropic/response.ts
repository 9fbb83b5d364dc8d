import type { ChatCompletion, ChatToolCall, ChatUsage, FinishReason } from '../../wire/openai.ts';
import type { AnthropicResponse, AnthropicUsage } from './types.ts';

/** Thinking goes to `reasoning_content` (DeepSeek's field, which SDKs ignore), not `content`. */
export function toChatCompletion(r: AnthropicResponse, created = Math.floor(Date.now() / 1000)): ChatCompletion {
  let text = '';
  let hasText = false;
  let thinking = '';
  let thought = false;
  const toolCalls: ChatToolCall[] = [];
  for (const b of r.content ?? []) {
    if (b.type === 'text') {
      text += b.text;
      hasText = true;
    } else if (b.type === 'tool_use') {
      toolCalls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } });
    } else if (b.type === 'thinking') {
      thinking += b.thinking;
      thought = true;
    } else if (b.type === 'redacted_thinking') thought = true;
  }
  const message: ChatCompletion['choices'][number]['message'] = { role: 'assistant', content: hasText ? text : null };
  if (toolCalls.length) message.tool_calls = toolCalls;
  if (thinking) message.reasoning_content = thinking;
  const visibleChars = text.length + toolCalls.reduce((n, t) => n + t.function.arguments.length + t.function.name.length, 0);
  return {
    id: r.id,
    object: 'chat.completion',
    created,
    model: r.model,
    choices: [{ index: 0, message, finish_reason: finishReason(r.stop_reason), logprobs: null }],
    usage: toChatUsage(r.usage, thought ? visibleChars : undefined),
  };
}

export function finishReason(stop: string | null | undefined): FinishReason {
  switch (stop) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    case null:
    case undefined:
      return null;
    default: // end_turn, stop_sequence, pause_turn
      return 'stop';
  }
}

/** input_tokens excludes the cache, so it is added back; reasoning_tokens is an estimate
 * (docs/providers.md). `visibleChars` undefined means no thinking. */
export function toChatUsage(u: AnthropicUsage | undefined, visibleChars?: number): ChatUsage {
  const input = u?.input_tokens ?? 0;
  const read = u?.cache_read_input_tokens ?? 0;
  const write = u?.cache_creation_input_tokens ?? 0;
  const output = u?.output_tokens ?? 0;
  const prompt = input + read + write;
  const reasoning = visibleChars === undefined ? 0 : Math.min(output, Math.max(0, output - Math.ceil(visibleChars / 4)));
  return {
    prompt_tokens: prompt,
    completion_tokens: output,
    total_tokens: prompt + output,
    prompt_tokens_details: { cached_tokens: read, cache_creation_tokens: write },
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
}
