import type { Logger } from '../../../core/kernel/log.ts';
import { UpstreamError } from '../../../core/providers/types.ts';
import { toAppError } from '../../http/errors.ts';

const enc = new TextEncoder();

export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  // nginx buffers by default; a token stream must not wait.
  'x-accel-buffering': 'no',
};

export interface SseOptions {
  done?: string;
  onError?: (err: unknown) => string;
  /** For non-upstream failures; the gateway logs upstream ones with usage. */
  log?: { logger: Logger; requestId: string | undefined };
}

/**
 * After the first byte a failure can only be a final error event.
 * Failing or cancelled, the iterator is returned: that aborts the upstream.
 */
export function sseBody<T>(items: AsyncIterable<T>, format: (item: T) => string, opts: SseOptions = {}): ReadableStream<Uint8Array> {
  const it = items[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      try {
        const { value, done } = await it.next();
        if (done) {
          if (opts.done) ctrl.enqueue(enc.encode(opts.done));
          ctrl.close();
          return;
        }
        ctrl.enqueue(enc.encode(format(value)));
      } catch (err) {
        ctrl.enqueue(enc.encode(opts.onError ? opts.onError(err) : sseErrorEvent(err)));
        ctrl.close();
        if (!(err instanceof UpstreamError)) opts.log?.logger.error('stream failed', { requestId: opts.log.requestId, error: err });
        await Promise.resolve(it.return?.()).catch(() => {});
      }
    },
    async cancel() {
      await it.return?.();
    },
  });
}

/** A failure after the first byte, in OpenAI's error shape. */
export function sseErrorEvent(err: unknown): string {
  const e = toAppError(err);
  return `data: ${JSON.stringify({ error: { message: e.message, type: e.type ?? 'server_error', param: e.field ?? null, code: e.code } })}\n\n`;
}
