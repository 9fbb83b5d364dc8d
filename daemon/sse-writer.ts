import type { ServerResponse } from 'node:http';
import type { ChatChunk } from '../core/wire/openai.ts';
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
 * sends the headers and the first chunk in one write.
 *
 * The chunks after it are joined per tick (see Batch) and leave as one response write.
 */
export async function writeChatStream(res: ServerResponse, chunks: AsyncIterable<ChatChunk>, headerFlush?: NodeJS.Immediate): Promise<void> {
  let isFirst = true;
  const b: Batch = { res, text: '', scheduled: false, full: undefined };
  try {
    for await (const chunk of chunks) {
      if (res.destroyed) break;
      if (!isFirst) {
        add(b, sseChunk(chunk));
        if (b.full) await b.full;
        continue;
      }
      isFirst = false;
      if (headerFlush) clearImmediate(headerFlush);
      const more = res.write(sseChunk(chunk));
      // Balanced with Node's own deferred uncork: uncorking a socket that is not corked is a no-op.
      res.socket?.uncork();
      if (!more) await drained(res);
    }
    if (!res.destroyed) res.end(take(b) + SSE_DONE);
  } catch (err) {
    if (!res.destroyed) res.end(take(b) + sseErrorEvent(err));
  }
}

/**
 * Events waiting for the end of this tick. An upstream read usually holds several events; they are
 * parsed in one run of microtasks, so joining them until the next tick turns N response writes
 * (each a chunked-encoding frame of four pieces in the socket's writev) into one, while an event
 * that arrives on its own still leaves in its own tick. `full` is set while the socket is over its
 * high-water mark: the loop waits on it before pulling more from the upstream.
 */
interface Batch {
  res: ServerResponse;
  text: string;
  scheduled: boolean;
  full: Promise<void> | undefined;
}

/** A batch this large is written at once: a source that never waits must not pile up in memory. */
const MAX_BATCH = 16 * 1024;

function add(b: Batch, event: string): void {
  b.text += event;
  if (b.text.length >= MAX_BATCH) return flush(b);
  if (b.scheduled) return;
  b.scheduled = true;
  process.nextTick(flush, b);
}

function flush(b: Batch): void {
  const text = take(b);
  if (text === '') return; // taken already (by the end of the stream, or a full batch)
  if (b.res.destroyed || b.res.writableEnded) return;
  if (!b.res.write(text)) b.full = drained(b.res).then(() => void (b.full = undefined));
}

function take(b: Batch): string {
  const text = b.text;
  b.text = '';
  b.scheduled = false;
  return text;
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
