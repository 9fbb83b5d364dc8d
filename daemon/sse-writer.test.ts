import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatChunk } from '../core/wire/openai.ts';
import { AppError } from '../core/kernel/errors.ts';
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

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
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

/** Each event's delta content (or [DONE]) in an SSE text. */
function contents(text: string): string[] {
  return text.split('\n\n').filter(Boolean).map((e) => (e === 'data: [DONE]' ? '[DONE]' : JSON.parse(e.slice(6)).choices[0].delta.content));
}

/** A GET whose response is paused after its first data; resume() reads the rest and counts the events. */
function pausedClient(): { paused: Promise<void>; resume: () => Promise<number> } {
  let res: IncomingMessage | undefined;
  let body = '';
  const paused = new Promise<void>((resolve, reject) => {
    request({ port, host: '127.0.0.1', path: '/' }, (r) => {
      res = r;
      r.setEncoding('utf8');
      r.once('data', (d: string) => {
        body += d;
        r.pause();
        resolve();
      });
    }).on('error', reject).end();
  });
  const resume = () =>
    new Promise<number>((resolve) => {
      res!.on('data', (d: string) => (body += d));
      res!.on('end', () => resolve(contents(body).length));
      res!.resume();
    });
  return { paused, resume };
}

/** Records what each res.write / res.end call carried. */
function spyWrites(res: ServerResponse, into: string[]): void {
  const write = res.write.bind(res) as (...a: unknown[]) => boolean;
  const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
  res.write = ((data: unknown, ...rest: unknown[]) => (into.push(String(data)), write(data, ...rest))) as typeof res.write;
  res.end = ((data: unknown, ...rest: unknown[]) => (data !== undefined && into.push(String(data)), end(data, ...rest))) as typeof res.end;
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
      yield chunk('third');
    };
    const body = await get();
    assert.match(body, /first[\s\S]*second[\s\S]*third[\s\S]*\[DONE\]/);
    assert.equal(buffered[0], 0, 'headers and the first chunk were written before the second was asked for');
  });

  it('chunks after the first leave as one write per tick, the last batch with [DONE]', async () => {
    const writes: string[] = [];
    source = async function* (res) {
      spyWrites(res, writes);
      yield chunk('1');
      yield chunk('2');
      yield chunk('3');
      await sleep(5);
      yield chunk('4');
      yield chunk('5');
      await sleep(5);
      yield chunk('6');
    };
    const body = await get();
    assert.equal(contents(body).join(''), '123456[DONE]');
    assert.deepEqual(writes.map((w) => contents(w).join('')), ['1', '23', '45', '6[DONE]']);
  });

  it('a batch never grows past 16 KiB: a source that never waits is written as it goes', async () => {
    const writes: string[] = [];
    const big = 'x'.repeat(4000);
    source = async function* (res) {
      spyWrites(res, writes);
      for (let i = 0; i < 40; i++) yield chunk(big);
    };
    const body = await get();
    assert.equal(contents(body).length, 41);
    assert.ok(writes.length >= 8, `written in ${writes.length} writes`);
    for (const w of writes) assert.ok(w.length < 16 * 1024 + 4200, `a write of ${w.length} characters`);
  });

  it('a client that stops reading stops the source (backpressure), and gets everything once it reads', async () => {
    let produced = 0;
    const big = 'y'.repeat(16_000);
    source = async function* () {
      for (let i = 0; i < 2000; i++) {
        produced++;
        yield chunk(big);
      }
    };
    const client = pausedClient();
    await client.paused;
    // Wait for the pulling to stop (unchanged for 200 ms). Without backpressure the whole 32 MB is
    // pulled at once; with it, only what the socket buffers hold (a few MB on loopback).
    let held = -1;
    for (let i = 0; i < 50 && held !== produced; i++) {
      held = produced;
      await sleep(200);
    }
    assert.ok(produced < 1000, `pulled ${produced} of 2000 chunks while the client read nothing`);
    assert.equal(await client.resume(), 2001, 'every chunk and [DONE] arrived');
    assert.equal(produced, 2000);
  });

  it('a failure after the first chunk becomes a final error event', async () => {
    source = async function* () {
      yield chunk('a');
      throw new AppError('upstream_connection_reset', 'The upstream connection failed.');
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
