import type { ServerResponse } from 'node:http';
import type { ChatChunk } from '../core/wire/openai.ts';
import { SSE_DONE, sseChunk } from './routes/v1/chat.ts';
import { sseErrorEvent } from './routes/v1/sse.ts';

/**
 * Late failures become an error event; a gone client aborts the upstream.
 * First chunk uncorked at once, the rest batched per tick (docs/limits.md).
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
      // Node's own uncork follows; uncorking twice is harmless.
      res.socket?.uncork();
      if (!more) await drained(res);
    }
    if (!res.destroyed) res.end(take(b) + SSE_DONE);
  } catch (err) {
    if (!res.destroyed) res.end(take(b) + sseErrorEvent(err));
  }
}

/** One upstream read, one write; `full` pauses the upstream. */
interface Batch {
  res: ServerResponse;
  text: string;
  scheduled: boolean;
  full: Promise<void> | undefined;
}

/** Written at once: a source that never waits must not pile up. */
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
