import type { ChatChunk, ChatUsage } from '../../gateway/types.ts';
import { badResponse, streamError } from '../errors.ts';
import { SseParser } from '../sse.ts';
import type { ProviderId } from '../types.ts';

/**
 * OpenAI-style SSE text → ChatChunks, each yielded the moment its event is complete (no
 * buffering). Usage is normalised to OpenAI's `include_usage` form: upstreams that attach usage to
 * their last content chunk (Mistral, Together, some local servers) have it moved into a separate
 * final chunk with `choices: []`, so consumers find usage in one place. Ends at `data: [DONE]`; a
 * stream that stops before [DONE] without a finish_reason was cut and throws.
 */
export async function* openAiChunks(provider: ProviderId, text: AsyncIterable<string>): AsyncGenerator<ChatChunk> {
  const parser = new SseParser();
  let pendingUsage: ChatChunk | undefined;
  let finished = false;
  let done = false;

  function* handle(data: string): Generator<ChatChunk> {
    if (data === '[DONE]') {
      done = true;
      return;
    }
    let chunk: ChatChunk & { error?: unknown };
    try {
      chunk = JSON.parse(data) as ChatChunk & { error?: unknown };
    } catch {
      throw badResponse(provider, 'a stream event that is not JSON');
    }
    if (chunk.error !== undefined) throw streamError(provider, chunk);
    const choices = chunk.choices;
    if (!Array.isArray(choices)) throw badResponse(provider, 'a stream chunk without choices');
    for (const c of choices) if (c.finish_reason) finished = true;
    if (chunk.usage && choices.length > 0) {
      // Usage riding on a content chunk: split it off into the trailing usage chunk.
      pendingUsage = usageChunk(chunk, chunk.usage);
      chunk = { ...chunk };
      delete chunk.usage;
    } else if (chunk.usage && choices.length === 0) {
      pendingUsage = undefined;
    }
    yield chunk;
  }

  for await (const t of text) {
    if (done) continue; // drain what follows [DONE] so the connection can be reused
    for (const ev of parser.push(t)) {
      yield* handle(ev.data);
      if (done) break;
    }
  }
  if (!done) for (const ev of parser.end()) yield* handle(ev.data);
  if (!done && !finished) throw badResponse(provider, 'a stream that ended before it finished');
  if (pendingUsage) yield pendingUsage;
}

function usageChunk(like: ChatChunk, usage: ChatUsage): ChatChunk {
  return { id: like.id, object: 'chat.completion.chunk', created: like.created, model: like.model, choices: [], usage };
}
