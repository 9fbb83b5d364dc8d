import { UpstreamError } from '../providers/types.ts';
import { PARTIAL_USAGE, type ChatChunk, type ChatUsage } from '../wire/openai.ts';

/** How a stream ended, for accounting: reported once, however it ended. */
export interface StreamEnd {
  /** 200 when ended or left normally, else the failure's (500 if not upstream). */
  status: number;
  /** The upstream's final usage, when it arrived. */
  usage: ChatUsage | undefined;
  /** Usage reported early (Anthropic's input count at message_start). */
  partial: ChatUsage | undefined;
  /** Generated characters handed over: content, reasoning, refusal, tool calls. */
  deliveredChars: number;
  /** The failure, when status is not 200. */
  error: unknown;
}

/**
 * Reports however a stream ended, so a cut stream is still counted. Usage-only chunks pass
 * only on request: readers of `choices[0]` must not meet them. A class for GC (docs/performance.md).
 */
export class Tracked implements AsyncIterableIterator<ChatChunk> {
  readonly #chunks: AsyncIterator<ChatChunk>;
  readonly #forwardUsage: boolean;
  #done: ((end: StreamEnd) => void) | undefined;
  #usage: ChatUsage | undefined;
  #partial: ChatUsage | undefined;
  #delivered = 0;

  constructor(chunks: AsyncIterable<ChatChunk>, done: (end: StreamEnd) => void, forwardUsage = true) {
    this.#chunks = chunks[Symbol.asyncIterator]();
    this.#done = done;
    this.#forwardUsage = forwardUsage;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ChatChunk> {
    return this;
  }

  // Not async: bound handlers cost less per chunk than an async frame and await.
  next(): Promise<IteratorResult<ChatChunk>> {
    if (this.#done === undefined) return Promise.resolve({ value: undefined, done: true });
    let pending: Promise<IteratorResult<ChatChunk>>;
    try {
      pending = this.#chunks.next();
    } catch (err) {
      pending = Promise.reject(err); // a throwing source still ends the stream
    }
    return pending.then(this.#onResult, this.#onError);
  }

  readonly #onResult = (r: IteratorResult<ChatChunk>): IteratorResult<ChatChunk> | Promise<IteratorResult<ChatChunk>> => {
    if (r.done) {
      this.#end(200, undefined);
      return r;
    }
    const chunk = r.value;
    const choices = chunk.choices;
    for (let i = 0; i < choices.length; i++) {
      const d = choices[i]!.delta;
      if (d) this.#delivered += deltaChars(d);
    }
    if (chunk.usage) {
      this.#usage = chunk.usage;
      if (choices.length === 0 && !this.#forwardUsage) return this.next(); // not asked for: skipped
    } else if (chunk[PARTIAL_USAGE] !== undefined && this.#partial === undefined) this.#partial = chunk[PARTIAL_USAGE];
    return r;
  };

  readonly #onError = (err: unknown): never => {
    this.#end(err instanceof UpstreamError ? err.status : 500, err);
    throw err;
  };

  async return(): Promise<IteratorResult<ChatChunk>> {
    try {
      if (this.#done !== undefined) await this.#chunks.return?.();
    } finally {
      this.#end(200, undefined);
    }
    return { value: undefined, done: true };
  }

  #end(status: number, error: unknown): void {
    const done = this.#done;
    if (done === undefined) return;
    this.#done = undefined;
    done({ status, usage: this.#usage, partial: this.#partial, deliveredChars: this.#delivered, error });
  }
}

/** Generated characters in one delta (reasoning under either name some upstreams use). */
function deltaChars(d: ChatChunk['choices'][number]['delta']): number {
  let n = 0;
  const content = d.content;
  if (typeof content === 'string') n += content.length;
  const reasoning = d.reasoning_content ?? d.reasoning;
  if (typeof reasoning === 'string') n += reasoning.length;
  if (typeof d.refusal === 'string') n += d.refusal.length;
  const calls = d.tool_calls;
  if (calls) {
    for (let i = 0; i < calls.length; i++) {
      const f = calls[i]!.function;
      if (f === undefined) continue;
      if (typeof f.name === 'string') n += f.name.length;
      if (typeof f.arguments === 'string') n += f.arguments.length;
    }
  }
  return n;
}
