import { RAW_JSON, type ChatChunk, type ChatUsage } from '../../wire/openai.ts';
import { badResponse, streamError } from '../errors.ts';
import { SseParser } from '../sse.ts';
import { DONE } from '../upstream-call.ts';
import type { ProviderId } from '../types.ts';

/** Usage always in a final `choices: []` chunk, whichever way the upstream sends it;
 * a stream ending before [DONE] and without finish_reason was cut, and throws. */
export function openAiChunks(provider: ProviderId, text: AsyncIterable<string>, mapError?: (err: unknown) => unknown): AsyncIterableIterator<ChatChunk> {
  return new OpenAiChunkStream(provider, text[Symbol.asyncIterator](), mapError);
}

/** Not a generator: this is the hottest loop (docs/performance.md). Errors follow the chunks
 * before them; one next() at a time, overlapping calls are not queued. */
class OpenAiChunkStream implements AsyncIterableIterator<ChatChunk> {
  readonly #text: AsyncIterator<string>;
  readonly #mapError: ((err: unknown) => unknown) | undefined;
  readonly #parser = new SseParser();
  readonly #st: StreamState;
  #queue: ChatChunk[] = [];
  #at = 0;
  /** Text ended, failed, or the consumer returned. */
  #closed = false;
  #textOpen = true;
  #failure: unknown;

  constructor(provider: ProviderId, text: AsyncIterator<string>, mapError: ((err: unknown) => unknown) | undefined) {
    this.#text = text;
    this.#mapError = mapError;
    this.#st = { provider, pendingUsage: undefined, finished: false, done: false };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ChatChunk> {
    return this;
  }

  next(): Promise<IteratorResult<ChatChunk>> {
    // Parsed chunks skip the async function's frame and await.
    if (this.#at < this.#queue.length) return Promise.resolve({ value: this.#queue[this.#at++]!, done: false });
    return this.#pull();
  }

  async #pull(): Promise<IteratorResult<ChatChunk>> {
    for (;;) {
      if (this.#at < this.#queue.length) return { value: this.#queue[this.#at++]!, done: false };
      if (this.#closed) {
        const failure = this.#failure;
        if (failure === undefined) return DONE;
        this.#failure = undefined;
        await this.#closeText();
        throw failure;
      }
      this.#queue = [];
      this.#at = 0;
      let r: IteratorResult<string>;
      try {
        r = await this.#text.next();
      } catch (err) {
        this.#textOpen = false; // it failed: it is over
        this.#closed = true;
        throw this.#mapError ? this.#mapError(err) : err;
      }
      if (r.done) {
        this.#textOpen = false;
        this.#end();
      } else if (!this.#st.done) this.#feed(r.value); // after [DONE]: drained, so the connection can be reused
    }
  }

  /** The consumer left early: close the text (the upstream connection) too. */
  async return(): Promise<IteratorResult<ChatChunk>> {
    this.#closed = true;
    this.#failure = undefined;
    this.#queue = [];
    this.#at = 0;
    await this.#closeText();
    return DONE;
  }

  #feed(text: string): void {
    try {
      for (const ev of this.#parser.push(text)) {
        const chunk = handle(this.#st, ev.data);
        if (chunk) this.#queue.push(chunk);
        if (this.#st.done) break;
      }
    } catch (err) {
      this.#fail(err);
    }
  }

  #end(): void {
    const st = this.#st;
    this.#closed = true;
    try {
      if (!st.done) {
        for (const ev of this.#parser.end()) {
          const chunk = handle(st, ev.data);
          if (chunk) this.#queue.push(chunk);
        }
      }
      if (!st.done && !st.finished) throw badResponse(st.provider, 'a stream that ended before it finished');
      if (st.pendingUsage) this.#queue.push(st.pendingUsage);
    } catch (err) {
      this.#fail(err);
    }
  }

  #fail(err: unknown): void {
    this.#closed = true;
    this.#failure = err;
  }

  async #closeText(): Promise<void> {
    if (!this.#textOpen) return;
    this.#textOpen = false;
    await this.#text.return?.();
  }
}

// No per-stream closures: fewer objects survive young GCs.
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
    // Usage on a content chunk moves to the trailing one.
    st.pendingUsage = usageChunk(chunk, chunk.usage);
    chunk = { ...chunk };
    delete chunk.usage;
    return chunk;
  }
  if (chunk.usage) st.pendingUsage = undefined;
  // Unchanged and one line, so its text goes out as it came.
  if (data.indexOf('\n') === -1) chunk[RAW_JSON] = data;
  return chunk;
}

function usageChunk(like: ChatChunk, usage: ChatUsage): ChatChunk {
  return { id: like.id, object: 'chat.completion.chunk', created: like.created, model: like.model, choices: [], usage };
}
