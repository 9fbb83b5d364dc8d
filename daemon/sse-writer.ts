import type { ServerResponse } from 'node:http';
import type { ChatChunk } from '../core/gateway/types.ts';
import { SSE_DONE, sseChunk } from './routes/v1/chat.ts';
import { sseErrorEvent } from './routes/v1/sse.ts';

/**
 * Writes chat chunks to a streaming response as they arrive (waiting for the socket when it is
 * full). A failure after the first byte becomes a final error event; a client that goes away ends
 * the loop, which returns the iterator and so aborts the upstream call. `headerFlush`, the pending
 * flush of the headers alone, is cancelled once the first chunk is in hand.
 *
 * The first chunk leaves at once. Node corks a chunked response's socket until the next tick, so
 * when an upstream delivers many events in one read (a fast model, a cached answer, a zero-latency
 * fake), every chunk would wait for the last one to be parsed and re-serialised before any of them
 * left: time to first token would become time to the whole answer. Uncorking after the first write
 * sends the headers and the first chunk in one write; the rest of that read follows in a second.
 */
export async function writeChatStream(res: ServerResponse, chunks: AsyncIterable<ChatChunk>, headerFlush?: NodeJS.Immediate): Promise<void> {
  let isFirst = true;
  try {
    for await (const chunk of chunks) {
      if (isFirst && headerFlush) clearImmediate(headerFlush);
      if (res.destroyed) break;
      const more = res.write(sseChunk(chunk));
      if (isFirst) {
        isFirst = false;
        // Balanced with Node's own deferred uncork: uncorking a socket that is not corked is a no-op.
        res.socket?.uncork();
      }
      if (!more) await drained(res);
    }
    if (!res.destroyed) res.end(SSE_DONE);
  } catch (err) {
    if (!res.destroyed) res.end(sseErrorEvent(err));
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const go = () => {
      res.off('drain', go);
      res.off('close', go);
      resolve();
    };
    res.on('drain', go);
    res.on('close', go);
  });
}
