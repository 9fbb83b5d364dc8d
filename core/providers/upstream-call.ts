import type { Dispatcher } from 'undici';

/** undici's dispatch() with a small handler: `pool.request()`'s per-call graph outlived
 * young GCs (figures in docs/performance.md). */
export interface UpstreamResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: UpstreamBody;
}

export interface CallOptions {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body: string | null;
  signal: AbortSignal | undefined;
  headersTimeout: number;
  bodyTimeout: number;
}

/** Shared, hence frozen. */
export const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

/** Bytes buffered ahead of a slow reader before the upstream socket is paused. */
const HIGH_WATER = 64 * 1024;

export function callUpstream(dispatcher: Dispatcher, o: CallOptions): Promise<UpstreamResponse> {
  return new Promise<UpstreamResponse>((resolve, reject) => {
    const call = new Call(resolve, reject, o.signal);
    if (o.signal?.aborted) return call.fail(o.signal.reason);
    try {
      dispatcher.dispatch({ method: o.method, path: o.path, headers: o.headers, body: o.body, headersTimeout: o.headersTimeout, bodyTimeout: o.bodyTimeout }, call);
    } catch (err) {
      call.fail(err);
    }
  });
}

type Controller = Dispatcher.DispatchController;

// One shared abort listener: per-call listeners got ended calls promoted (docs/performance.md).
// A set once one signal covers several calls.
const inFlight = new Map<AbortSignal, Call | Set<Call>>();
function onAbort(this: AbortSignal): void {
  const calls = inFlight.get(this);
  if (calls instanceof Set) for (const c of [...calls]) c.abort();
  else calls?.abort();
}

function track(signal: AbortSignal, call: Call): void {
  const had = inFlight.get(signal);
  if (had === undefined) {
    inFlight.set(signal, call);
    signal.addEventListener('abort', onAbort);
  } else if (had instanceof Set) had.add(call);
  else inFlight.set(signal, new Set([had, call]));
}

function untrack(signal: AbortSignal, call: Call): void {
  const had = inFlight.get(signal);
  if (had instanceof Set) {
    had.delete(call);
    if (had.size > 0) return;
  } else if (had !== call) return;
  inFlight.delete(signal);
  signal.removeEventListener('abort', onAbort);
}

class Call implements Dispatcher.DispatchHandler {
  #resolve: ((r: UpstreamResponse) => void) | undefined;
  #reject: ((e: unknown) => void) | undefined;
  #signal: AbortSignal | undefined;
  #controller: Controller | undefined;
  #body: UpstreamBody | undefined;
  #done = false;

  constructor(resolve: (r: UpstreamResponse) => void, reject: (e: unknown) => void, signal: AbortSignal | undefined) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
    if (signal) track(signal, this);
  }

  abort(): void {
    const reason = this.#signal?.reason;
    if (this.#controller) this.#controller.abort(reason);
    else this.fail(reason);
  }

  onRequestStart(controller: Controller): void {
    this.#controller = controller;
    if (this.#done) controller.abort(new Error('aborted'));
  }

  onResponseStart(controller: Controller, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx: informational, the real response follows
    const resolve = this.#resolve;
    this.#resolve = this.#reject = undefined;
    this.#body = new UpstreamBody(controller);
    resolve?.({ statusCode, headers, body: this.#body });
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    if (this.#body?.push(chunk) === false) controller.pause();
  }

  onResponseEnd(): void {
    this.#finish();
    this.#body?.end();
  }

  onResponseError(_controller: Controller, err: Error): void {
    this.fail(err);
  }

  fail(err: unknown): void {
    this.#finish();
    const reject = this.#reject;
    this.#resolve = this.#reject = undefined;
    if (reject) reject(err);
    else this.#body?.error(err);
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    if (this.#signal) untrack(this.#signal, this);
  }
}

/** text() or UTF-8 strings; leaving early aborts the call rather than read unwanted bytes. */
export class UpstreamBody implements AsyncIterable<string>, AsyncIterator<string> {
  readonly #controller: Controller;
  #chunks: Buffer[] = [];
  #buffered = 0;
  #ended = false;
  #error: unknown;
  #failed = false;
  #consumed = false;
  /** text() takes everything: no backpressure. */
  #whole = false;
  #wake: (() => void) | undefined;
  /** Carries characters split across chunks. */
  #decoder: TextDecoder | undefined;

  constructor(controller: Controller) {
    this.#controller = controller;
  }

  /** True once the whole body has arrived. */
  get readableEnded(): boolean {
    return this.#ended && !this.#failed;
  }

  /** False when the reader is behind: pause the socket. */
  push(chunk: Buffer): boolean {
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    this.#wakeUp();
    return this.#whole || this.#buffered < HIGH_WATER;
  }

  end(): void {
    this.#ended = true;
    this.#wakeUp();
  }

  error(err: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#failed = true;
    this.#error = err;
    this.#wakeUp();
  }

  destroy(): void {
    if (this.#ended) return;
    this.error(new Error('upstream body abandoned'));
    this.#controller.abort(new Error('upstream body abandoned'));
  }

  async text(): Promise<string> {
    this.#claim();
    this.#whole = true;
    // resume() may deliver data synchronously.
    if (this.#controller.paused) this.#controller.resume();
    while (!this.#ended) await this.#wait();
    if (this.#failed) throw this.#error;
    const all = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
    this.#chunks = [];
    return utf8.decode(all);
  }

  /** Its own iterator, not a generator's per-chunk promises; one next() at a time. */
  [Symbol.asyncIterator](): AsyncIterator<string> {
    this.#claim();
    this.#decoder = new TextDecoder();
    return this;
  }

  async next(): Promise<IteratorResult<string>> {
    const decoder = this.#decoder;
    if (decoder === undefined) return DONE; // finished, failed or returned
    for (;;) {
      if (this.#chunks.length > 0) {
        const chunks = this.#chunks;
        const bytes = this.#buffered;
        this.#chunks = [];
        this.#buffered = 0;
        if (this.#controller.paused && !this.#ended) this.#controller.resume();
        // Joined as bytes: joined strings made a rope indexOf flattened.
        const s = decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, bytes), { stream: true });
        if (s) return { value: s, done: false };
        continue;
      }
      if (this.#failed) {
        this.#decoder = undefined;
        throw this.#error;
      }
      if (this.#ended) {
        this.#decoder = undefined;
        const rest = decoder.decode();
        return rest ? { value: rest, done: false } : DONE;
      }
      await this.#wait();
    }
  }

  /** Aborts the call unless the body ended. */
  async return(): Promise<IteratorResult<string>> {
    this.#decoder = undefined;
    this.destroy();
    return DONE;
  }

  #claim(): void {
    if (this.#consumed) throw new TypeError('the upstream body was already read');
    this.#consumed = true;
  }

  #wait(): Promise<void> {
    return new Promise<void>((resolve) => (this.#wake = resolve));
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

// Strips a leading BOM, as undici's body.text() does.
const utf8 = new TextDecoder();
