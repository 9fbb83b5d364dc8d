import { RAW_JSON, type ChatChunk, type ChatUsage } from '../../wire/openai.ts';
import { badResponse, streamError } from '../errors.ts';
import { SseParser } from '../sse.ts';
import { DONE } from '../upstream-call.ts';
import type { ProviderId } from '../types.ts';

/**
 * OpenAI-style SSE text → ChatChunks, each handed out the moment its event is complete (no
 * buffering). Usage is normalised to OpenAI's `include_usage` form: upstreams that attach usage to
 * their last content chunk (Mistral, Together, some local servers) have it moved into a separate
 * final chunk with `choices: []`, so consumers find usage in one place. Ends at `data: [DONE]`; a
 * stream that stops before [DONE] without a finish_reason was cut and throws. `mapError` turns a
 * failure of `text` itself (the connection) into the error the caller throws.
 */
export function openAiChunks(provider: ProviderId, text: AsyncIterable<string>, mapError?: (err: unknown) => unknown): AsyncIterableIterator<ChatChunk> {
  return new OpenAiChunkStream(provider, text[Symbol.asyncIterator](), mapError);
}

/**
 * An iterator class rather than an async generator: this is the hottest loop of a streamed call,
 * and a generator allocates a promise, an await and a result object per chunk on top of its own
 * frame (the sampling heap profile put ~8 KB of a streamed call's ~75 KB here). One upstream read
 * usually completes several events; they are parsed together and handed out from `queue`.
 * A failure after some events of a read were parsed (a bad event, a cut stream) is thrown once the
 * chunks before it have been handed out, as the generator did.
 * Like the upstream body it reads, it serves one next() at a time (a for-await loop, a
 * ReadableStream's pull): unlike an async generator it does not queue overlapping calls.
 */
class OpenAiChunkStream implements AsyncIterableIterator<ChatChunk> {
  readonly #text: AsyncIterator<string>;
  readonly #mapError: ((err: unknown) => unknown) | undefined;
  readonly #parser = new SseParser();
  readonly #st: StreamState;
  #queue: ChatChunk[] = [];
  #at = 0;
  /** Nothing more will be parsed: the text ended, failed, or the consumer returned. */
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
    // A chunk already parsed goes out without entering an async function (its frame and await).
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

// An explicit state object and module-level functions rather than closures made per stream:
// fewer per-call objects survive young-generation GCs.
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
