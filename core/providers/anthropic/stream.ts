import { PARTIAL_USAGE, type ChatChunk } from '../../wire/openai.ts';
import { badResponse, streamError } from '../errors.ts';
import { SseParser } from '../sse.ts';
import type { ProviderId } from '../types.ts';
import { finishReason, toChatUsage } from './response.ts';
import type { AnthropicUsage } from './types.ts';

type Delta = ChatChunk['choices'][number]['delta'];

/** One chunk per complete event; tool calls are numbered among tool_use blocks only,
 * as Anthropic's block index also counts text and thinking. */
export async function* anthropicChunks(provider: ProviderId, text: AsyncIterable<string>, created = Math.floor(Date.now() / 1000)): AsyncGenerator<ChatChunk> {
  const parser = new SseParser();
  let id = '';
  let model = '';
  let usage: AnthropicUsage = {};
  const toolIndex = new Map<number, number>();
  let thought = false;
  let visibleChars = 0;
  let stopped = false;

  const chunk = (delta: Delta, finish: ChatChunk['choices'][number]['finish_reason'] = null): ChatChunk => ({
    id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }],
  });

  function* handle(data: string): Generator<ChatChunk> {
    let ev: Record<string, any>;
    try {
      ev = JSON.parse(data) as Record<string, any>;
    } catch {
      throw badResponse(provider, 'a stream event that is not JSON');
    }
    switch (ev.type) {
      case 'message_start': {
        const m = ev.message ?? {};
        id = String(m.id ?? '');
        model = String(m.model ?? '');
        usage = { ...m.usage };
        const first = chunk({ role: 'assistant', content: '' });
        // Input is billed from here, even if the stream is abandoned.
        first[PARTIAL_USAGE] = toChatUsage({ ...usage, output_tokens: 0 });
        yield first;
        return;
      }
      case 'content_block_start': {
        const b = ev.content_block ?? {};
        if (b.type === 'tool_use') {
          const n = toolIndex.size;
          toolIndex.set(ev.index, n);
          visibleChars += String(b.name).length;
          yield chunk({ tool_calls: [{ index: n, id: b.id, type: 'function', function: { name: b.name, arguments: '' } }] });
        } else if (b.type === 'text' && b.text) {
          visibleChars += b.text.length;
          yield chunk({ content: b.text });
        } else if (b.type === 'thinking' || b.type === 'redacted_thinking') thought = true;
        return;
      }
      case 'content_block_delta': {
        const d = ev.delta ?? {};
        if (d.type === 'text_delta') {
          visibleChars += d.text.length;
          yield chunk({ content: d.text });
        } else if (d.type === 'input_json_delta') {
          const n = toolIndex.get(ev.index);
          if (n === undefined || !d.partial_json) return;
          visibleChars += d.partial_json.length;
          yield chunk({ tool_calls: [{ index: n, function: { arguments: d.partial_json } }] });
        } else if (d.type === 'thinking_delta') {
          thought = true;
          yield chunk({ reasoning_content: d.thinking });
        }
        return; // signature_delta, citations_delta: nothing to carry
      }
      case 'message_delta': {
        // Cumulative; newer API versions repeat the input counts.
        if (ev.usage) usage = { ...usage, ...stripNulls(ev.usage) };
        if (ev.delta?.stop_reason !== undefined) yield chunk({}, finishReason(ev.delta.stop_reason));
        return;
      }
      case 'message_stop':
        stopped = true;
        yield { id, object: 'chat.completion.chunk', created, model, choices: [], usage: toChatUsage(usage, thought ? visibleChars : undefined) };
        return;
      case 'error':
        throw streamError(provider, ev);
      default: // ping, content_block_stop, future events
        return;
    }
  }

  for await (const t of text) {
    if (stopped) continue; // drain to the end so the connection can be reused
    for (const ev of parser.push(t)) {
      yield* handle(ev.data);
      if (stopped) break;
    }
  }
  if (!stopped) for (const ev of parser.end()) yield* handle(ev.data);
  if (!stopped) throw badResponse(provider, 'a stream that ended before message_stop');
}

function stripNulls(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v != null) out[k] = v;
  return out;
}
