import assert from 'node:assert/strict';
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatChunk } from '../core/gateway/types.ts';
import { AppError } from '../core/errors.ts';
import { SSE_HEADERS } from './routes/v1/sse.ts';
import { writeChatStream } from './sse-writer.ts';

const chunk = (content: string): ChatChunk =>
  ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] }) as ChatChunk;

/** The stream each test serves, and what the response's socket looked like along the way. */
let source: (res: ServerResponse) => AsyncIterable<ChatChunk>;
let port = 0;
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, SSE_HEADERS);
  void writeChatStream(res, source(res));
});

before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function get(): Promise<string> {
  return new Promise((resolve, reject) => {
    request({ port, host: '127.0.0.1', path: '/' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve(body));
    }).on('error', reject).end();
  });
}

describe('writeChatStream', () => {
  it('every chunk as an SSE event, then [DONE]', async () => {
    source = async function* () {
      yield chunk('a');
      yield chunk('b');
    };
    const body = await get();
    assert.deepEqual(body.split('\n\n').filter(Boolean).map((e) => (e === 'data: [DONE]' ? e : JSON.parse(e.slice(6)).choices[0].delta.content)), ['a', 'b', 'data: [DONE]']);
  });

  it('the first chunk leaves at once, even when the rest of the answer is already in hand', async () => {
    // Node corks a chunked response until the next tick. Chunks that arrive together would all
    // wait for the last one; the writer uncorks after the first. Observed here: when the source is
    // asked for its second chunk (same tick, no I/O in between), nothing is left in the socket's
    // buffer — headers and first chunk were handed to the kernel.
    const buffered: number[] = [];
    source = async function* (res) {
      yield chunk('first');
      buffered.push(res.socket!.writableLength);
      yield chunk('second');
      buffered.push(res.socket!.writableLength);
      yield chunk('third');
    };
    const body = await get();
    assert.match(body, /first[\s\S]*second[\s\S]*third[\s\S]*\[DONE\]/);
    assert.equal(buffered[0], 0, 'headers and the first chunk were written before the second was asked for');
    assert.ok(buffered[1]! > 0, 'later chunks of the same tick are still batched into one write');
  });

  it('a failure after the first chunk becomes a final error event', async () => {
    source = async function* () {
      yield chunk('a');
      throw new AppError(502, 'upstream_connection_reset', 'The upstream connection failed.');
    };
    const body = await get();
    assert.match(body, /"a"/);
    assert.match(body, /data: \{"error":\{[^\n]*"code":"upstream_connection_reset"/);
    assert.doesNotMatch(body, /\[DONE\]/);
  });

  it('a client that goes away ends the loop and returns the source (which aborts the upstream)', async () => {
    let returned = false;
    let produced = 0;
    source = async function* () {
      try {
        for (;;) {
          yield chunk(String(produced++));
          await sleep(5);
        }
      } finally {
        returned = true;
      }
    };
    await new Promise<void>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', path: '/' }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => {});
      req.on('close', resolve);
      req.end();
      setTimeout(() => reject(new Error('no data')), 5000).unref();
    });
    for (let i = 0; i < 200 && !returned; i++) await sleep(10);
    assert.equal(returned, true);
    const at = produced;
    await sleep(50);
    assert.equal(produced, at, 'nothing more is pulled from the source');
  });
});
