import type { IncomingMessage, ServerResponse } from 'node:http';
import { tooLarge } from './limits.ts';
import { unreadableBody } from './json-body.ts';

const decoder = new TextDecoder(); // strips a leading BOM, as Request.text() does

/** 413 as soon as the limit is crossed; the rest drains later. */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let seen = 0;
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen <= limit) return void parts.push(chunk);
      req.off('data', onData);
      req.pause();
      reject(tooLarge(limit));
    };
    req.on('data', onData);
    req.once('end', () => resolve(decoder.decode(parts.length === 1 ? parts[0] : Buffer.concat(parts))));
    req.once('error', (err) => reject(unreadableBody(err)));
  });
}

/** An unread body is drained after the answer. */
export function send(req: IncomingMessage, res: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  headers['Content-Length'] = String(Buffer.byteLength(body));
  res.writeHead(status, headers);
  res.end(body);
  if (!req.readableEnded) drain(req);
}

const DRAIN_TIMEOUT_MS = 500;
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;

/** Keeps the socket reusable, within @hono/node-server's bounds; past them it closes. */
function drain(req: IncomingMessage): void {
  let bytes = 0;
  const cleanup = () => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', cleanup);
    req.off('error', cleanup);
  };
  const forceClose = () => {
    cleanup();
    if (!req.socket.destroyed) req.socket.destroySoon();
  };
  const onData = (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > MAX_DRAIN_BYTES) forceClose();
  };
  const timer = setTimeout(forceClose, DRAIN_TIMEOUT_MS);
  timer.unref();
  req.on('data', onData);
  req.on('end', cleanup);
  req.on('error', cleanup);
  req.resume();
}
