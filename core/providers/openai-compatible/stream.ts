import { RAW_JSON, type ChatChunk, type ChatUsage } from '../../gateway/types.ts';
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
  const st: StreamState = { provider, pendingUsage: undefined, finished: false, done: false };
  for await (const t of text) {
    if (st.done) continue; // drain what follows [DONE] so the connection can be reused
    for (const ev of parser.push(t)) {
      const chunk = handle(st, ev.data);
      if (chunk) yield chunk;
      if (st.done) break;
    }
  }
  if (!st.done) {
    for (const ev of parser.end()) {
      const chunk = handle(st, ev.data);
      if (chunk) yield chunk;
    }
  }
  if (!st.done && !st.finished) throw badResponse(provider, 'a stream that ended before it finished');
  if (st.pendingUsage) yield st.pendingUsage;
}

// Module-level with an explicit state object rather than a generator closure made per stream,
// like `tracked` in gateway/service.ts: fewer per-call objects survive young-generation GCs.
interface StreamState {
  provider: ProviderId;
  pendingUsage: ChatChunk | undefined;
  finished: boolean;
  done: boolean;
}

function handle(st: StreamState, data: string): ChatChunk | undefined {
  if (st.done) return undefined; // events after [DONE] are ignored
  if (data === '[DONE]') {
    st.done = true;
    return undefined;
  }
  let chunk: ChatChunk & { error?: unknown };
  try {
    chunk = JSON.parse(data) as ChatChunk & { error?: unknown };
  } catch {
    throw badResponse(st.provider, 'a stream event that is not JSON');
  }
  if (chunk.error !== undefined) throw streamError(st.provider, chunk);
  const choices = chunk.choices;
  if (!Array.isArray(choices)) throw badResponse(st.provider, 'a stream chunk without choices');
  for (const c of choices) if (c.finish_reason) st.finished = true;
  if (chunk.usage && choices.length > 0) {
    // Usage riding on a content chunk: split it off into the trailing usage chunk.
    st.pendingUsage = usageChunk(chunk, chunk.usage);
    chunk = { ...chunk };
    delete chunk.usage;
    return chunk;
  }
  if (chunk.usage) st.pendingUsage = undefined;
  // Unchanged: its own text can go out as it came (a multi-line data field cannot: one SSE line).
  if (data.indexOf('\n') === -1) chunk[RAW_JSON] = data;
  return chunk;
}

function usageChunk(like: ChatChunk, usage: ChatUsage): ChatChunk {
  return { id: like.id, object: 'chat.completion.chunk', created: like.created, model: like.model, choices: [], usage };
}
