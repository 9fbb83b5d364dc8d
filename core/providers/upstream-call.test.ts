import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { openAiChunks } from './openai-compatible/stream.ts';
import { callUpstream, type CallOptions } from './upstream-call.ts';

/** What the server saw of each request: its body, and whether the client went away before the end. */
interface Seen {
  body: string;
  clientClosed: boolean;
}

let origin = '';
let pool: Pool;
const seen: Seen[] = [];
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const rec: Seen = { body: '', clientClosed: false };
  seen.push(rec);
  res.on('close', () => (rec.clientClosed = !res.writableFinished));
  req.setEncoding('utf8');
  req.on('data', (d: string) => (rec.body += d));
  req.on('end', () => void route(req, res));
});

async function route(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url!, 'http://x');
  switch (url.pathname) {
    case '/json':
      res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'yes' });
      return res.end('\uFEFF{"ok":true}'); // a BOM, which text() drops as undici's did
    case '/split': {
      // "é" (c3 a9) and "😀" (f0 9f 98 80) cut between writes.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const bytes = Buffer.from('data: é😀\n\n');
      for (const part of [bytes.subarray(0, 7), bytes.subarray(7, 10), bytes.subarray(10)]) {
        res.write(part);
        await sleep(5);
      }
      return res.end();
    }
    case '/big': {
      const n = Number(url.searchParams.get('n'));
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(16 * 1024);
      for (let sent = 0; sent < n; sent += chunk.length) if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
      return res.end();
    }
    case '/endless':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      return; // never ends: the client must close it
    case '/endless-chat':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] })}\n\n`);
      return; // never ends
    case '/hang':
      return; // no response at all
    case '/reset':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    case '/500':
      res.writeHead(500, { 'content-type': 'application/json' });
      return res.end('{"error":{"message":"boom"}}');
    default:
      res.writeHead(404).end();
  }
}

const opts = (path: string, o: Partial<CallOptions> = {}): CallOptions => ({
  method: 'GET', path, headers: {}, body: null, signal: undefined, headersTimeout: 5000, bodyTimeout: 5000, ...o,
});

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  pool = new Pool(origin, { pipelining: 1 });
});
afterAll(async () => {
  await pool.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('callUpstream', () => {
  it('sends method, headers and body; answers status, parsed headers and text()', async () => {
    const r = await callUpstream(pool, opts('/json', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"q":1}' }));
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['x-upstream'], 'yes');
    assert.equal(await r.body.text(), '{"ok":true}');
    assert.equal(r.body.readableEnded, true);
    assert.equal(seen.at(-1)!.body, '{"q":1}');
  });

  it('a non-2xx answer is a response too, with a readable body', async () => {
    const r = await callUpstream(pool, opts('/500'));
    assert.equal(r.statusCode, 500);
    assert.match(await r.body.text(), /boom/);
  });

  it('iterates UTF-8 text, characters split across chunks decoded whole', async () => {
    const r = await callUpstream(pool, opts('/split'));
    let text = '';
    let parts = 0;
    for await (const s of r.body) {
      text += s;
      parts++;
    }
    assert.equal(text, 'data: é😀\n\n');
    assert.ok(parts >= 2, 'arrived in pieces');
    assert.ok(!text.includes('\uFFFD'));
  });

  it('a body read only once', async () => {
    const r = await callUpstream(pool, opts('/json'));
    await r.body.text();
    await assert.rejects(r.body.text(), /already read/);
  });

  it('a slow reader (text and iteration) gets the whole body, in order', async () => {
    const n = 4 * 1024 * 1024;
    const a = await callUpstream(pool, opts(`/big?n=${n}`));
    await sleep(100); // let the upstream fill the buffer past the high-water mark
    assert.equal((await a.body.text()).length, n);
    const b = await callUpstream(pool, opts(`/big?n=${n}`));
    let got = 0;
    for await (const s of b.body) {
      got += s.length;
      if (got < 256 * 1024) await sleep(5);
    }
    assert.equal(got, n);
  });

  it('leaving an iteration early closes the upstream connection', async () => {
    const r = await callUpstream(pool, opts('/endless'));
    for await (const s of r.body) {
      assert.equal(s, 'data: 1\n\n');
      break;
    }
    const rec = seen.at(-1)!;
    for (let i = 0; i < 200 && !rec.clientClosed; i++) await sleep(10);
    assert.equal(rec.clientClosed, true);
  });

  it('the OpenAI chunk stream returned while a read is pending (a cancelled response stream): the read settles, the connection closes', async () => {
    const r = await callUpstream(pool, opts('/endless-chat'));
    const chunks = openAiChunks('openai', r.body);
    assert.equal((await chunks.next()).value?.choices[0]?.delta.content, 'a');
    const pending = chunks.next(); // the upstream sends nothing more: this read waits
    await chunks.return!();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise((resolve) => (timer = setTimeout(resolve, 5000, 'still pending after 5 s')));
    await assert.rejects(Promise.race([pending, late]).finally(() => clearTimeout(timer)), /abandoned/);
    assert.deepEqual(await chunks.next(), { value: undefined, done: true });
    const rec = seen.at(-1)!;
    for (let i = 0; i < 200 && !rec.clientClosed; i++) await sleep(10);
    assert.equal(rec.clientClosed, true);
  });

  it('abort: before the call, while waiting for headers, and mid-body — each rejects with the reason', async () => {
    const pre = new AbortController();
    pre.abort(new Error('gone before'));
    await assert.rejects(callUpstream(pool, opts('/json', { signal: pre.signal })), /gone before/);

    const waiting = new AbortController();
    const p = callUpstream(pool, opts('/hang', { signal: waiting.signal }));
    setTimeout(() => waiting.abort(new Error('gone waiting')), 30);
    await assert.rejects(p, /gone waiting/);

    const mid = new AbortController();
    const r = await callUpstream(pool, opts('/endless', { signal: mid.signal }));
    setTimeout(() => mid.abort(new Error('gone mid-body')), 30);
    await assert.rejects(async () => {
      for await (const _ of r.body);
    }, /gone mid-body/);
  });

  it('one signal over several calls at once: each is tracked; ending one leaves the others abortable', async () => {
    const ac = new AbortController();
    const a = await callUpstream(pool, opts('/endless', { signal: ac.signal }));
    const b = await callUpstream(pool, opts('/endless', { signal: ac.signal }));
    const c = await callUpstream(pool, opts('/json', { signal: ac.signal }));
    assert.equal(await c.body.text(), '{"ok":true}'); // c ends first: a and b must still hear the abort
    setTimeout(() => ac.abort(new Error('all gone')), 20);
    for (const r of [a, b]) {
      const read = (async () => {
        for await (const _ of r.body);
      })();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the abort never reached this call')), 5000)));
      await assert.rejects(Promise.race([read, late]).finally(() => clearTimeout(timer)), /all gone/);
    }
  });

  it('an abort after the call ended changes nothing', async () => {
    const ac = new AbortController();
    const r = await callUpstream(pool, opts('/json', { signal: ac.signal }));
    assert.equal(await r.body.text(), '{"ok":true}');
    ac.abort(new Error('late'));
    const again = await callUpstream(pool, opts('/json')); // the pool is still fine
    assert.equal(await again.body.text(), '{"ok":true}');
  });

  it('a connection reset mid-body fails the read', async () => {
    const r = await callUpstream(pool, opts('/reset'));
    await assert.rejects(async () => {
      for await (const _ of r.body);
    }, (e: Error & { code?: string }) => /UND_ERR_SOCKET|ECONNRESET|other side closed/.test(`${e.code} ${e.message}`));
  });

  it('headers timeout: rejects with undici\'s timeout error', async () => {
    await assert.rejects(callUpstream(pool, opts('/hang', { headersTimeout: 100 })), (e: Error & { code?: string }) => e.code === 'UND_ERR_HEADERS_TIMEOUT');
  });

  it('an ended call leaves nothing alive: young-generation GCs free it (no promotion to the old generation)', async () => {
    // The reason this module exists (see its header). A child process with --expose-gc serves and
    // makes 300 calls with an AbortSignal each (server and client in one process, as in svc),
    // then runs two minor GCs: what they promote to the old generation must be small. With the
    // call itself as the abort listener (handleEvent), ~800 KB were promoted here; now ~100 KB.
    const script = `
      const { createServer } = await import('node:http');
      const { Pool } = await import('undici');
      const { callUpstream } = await import(${JSON.stringify(new URL('./upstream-call.ts', import.meta.url).href)});
      const v8 = await import('node:v8');
      const server = createServer((q, s) => { q.resume(); q.on('end', () => { s.writeHead(200, { 'content-type': 'application/json' }); s.end('{"ok":true}'); }); });
      await new Promise((r) => server.listen(0, '127.0.0.1', r));
      const pool = new Pool('http://127.0.0.1:' + server.address().port);
      const old = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_used_size;
      const one = async () => {
        const ac = new AbortController();
        const r = await callUpstream(pool, { method: 'GET', path: '/json', headers: {}, body: null, signal: ac.signal, headersTimeout: 5000, bodyTimeout: 5000 });
        await r.body.text();
      };
      for (let i = 0; i < 3000; i++) await one(); // warm up (JIT, pools)
      gc({ type: 'major' });
      const before = old();
      for (let i = 0; i < 300; i++) await one();
      gc({ type: 'minor' });
      gc({ type: 'minor' });
      process.stdout.write(JSON.stringify({ promotedKB: Math.round((old() - before) / 1024) }));
      await pool.close();
      server.close();
    `;
    const out = await promisify(execFile)(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    const { promotedKB } = JSON.parse(out.stdout) as { promotedKB: number };
    assert.ok(promotedKB < 250, `300 ended calls promoted ${promotedKB} KB`);
  });
});
