import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { httpRequestConfig, httpRequestTool } from './http-request.ts';
import { bodyOf, call, ctx, echoed, useTargets } from './http-request.test-fixture.ts';

const s = useTargets();

describe('http_request: passthrough', () => {
  it('GET returns the status line, content type and body', async () => {
    const r = await call({ method: 'GET', url: `${s.a.origin}/text?body=hi%20there` });
    assert.match(r, /^HTTP 200 OK\n/);
    assert.match(r, /\ncontent-type: text\/plain; charset=utf-8\n/);
    assert.equal(bodyOf(r), 'hi there');
  });
  it('shows only selected response headers', async () => {
    const r = await call({ method: 'GET', url: `${s.a.origin}/echo` });
    assert.doesNotMatch(r, /x-noise|set-cookie|server-cookie/);
  });
  it('an HTTP error status is a result, not an error', async () => {
    const r = await call({ method: 'GET', url: `${s.a.origin}/status?code=503` });
    assert.match(r, /^HTTP 503 Service Unavailable\n/);
    assert.equal(bodyOf(r), 'status body');
  });
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
    it(`${method} reaches the server with its headers and body`, async () => {
      const hasBody = method !== 'GET';
      const r = await call({
        method,
        url: `${s.a.origin}/echo?m=${method}`,
        headers: { 'X-Trace': `t-${method}`, Accept: 'application/json' },
        ...(hasBody ? { body: `{"m":"${method}"}` } : {}),
      });
      const e = echoed(r);
      assert.equal(e.method, method);
      assert.equal(e.url, `/echo?m=${method}`);
      assert.equal(e.headers['x-trace'], `t-${method}`);
      assert.equal(e.headers.accept, 'application/json');
      assert.equal(e.body, hasBody ? `{"m":"${method}"}` : '');
      if (hasBody) assert.equal(e.headers['content-type'], 'application/json', 'a JSON body gets a JSON content type');
    });
  }
  it('HEAD reaches the server and reports no body', async () => {
    const before = s.a.requests.length;
    const r = await call({ method: 'HEAD', url: `${s.a.origin}/text` });
    assert.equal(s.a.requests.at(-1)!.method, 'HEAD');
    assert.equal(s.a.requests.length, before + 1);
    assert.match(r, /\(no body: HEAD request\)$/);
  });
  it('a text body gets text/plain unless the model sets a content type', async () => {
    assert.equal(echoed(await call({ method: 'POST', url: `${s.a.origin}/echo`, body: 'plain' })).headers['content-type'], 'text/plain; charset=utf-8');
    const e = echoed(await call({ method: 'POST', url: `${s.a.origin}/echo`, body: 'x=1', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }));
    assert.equal(e.headers['content-type'], 'application/x-www-form-urlencoded');
  });
  it('agent default headers are sent and the model overrides them by name', async () => {
    const cfg = { defaultHeaders: { 'X-Team': 'blue', Accept: 'text/csv' } };
    const e = echoed(await call({ method: 'GET', url: `${s.a.origin}/echo`, headers: { accept: 'application/json' } }, {}, cfg));
    assert.equal(e.headers['x-team'], 'blue');
    assert.equal(e.headers.accept, 'application/json');
  });
  it('connection-level headers and Host are stripped, with a note', async () => {
    const r = await call({
      method: 'POST',
      url: `${s.a.origin}/echo`,
      body: 'x',
      headers: {
        Host: 'evil.example',
        Connection: 'x-smuggle',
        'Keep-Alive': 'timeout=99',
        'Transfer-Encoding': 'chunked',
        TE: 'trailers',
        Trailer: 'x-t',
        Upgrade: 'websocket',
        'Proxy-Authorization': 'Basic cHJveHk6cHc=',
        'Proxy-Connection': 'keep-alive',
        'Content-Length': '999',
        Expect: '100-continue',
        'X-Kept': 'yes',
      },
    });
    const seen = s.a.requests.at(-1)!;
    assert.equal(seen.headers.host, `127.0.0.1:${s.a.port}`);
    assert.equal(seen.body, 'x');
    assert.equal(seen.headers['content-length'], '1');
    for (const h of ['keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-connection', 'expect']) {
      assert.equal(seen.headers[h], undefined, h);
    }
    assert.notEqual(seen.headers.connection, 'x-smuggle');
    assert.equal(seen.headers['x-kept'], 'yes');
    assert.match(r, /note: ignored connection-level headers: host, connection, keep-alive, transfer-encoding, te, trailer, upgrade, proxy-authorization, proxy-connection, content-length, expect/);
  });
});

describe('http_request: credentials never reach the result', () => {
  it("the Authorization value is redacted even when the server echoes it", async () => {
    const r = await call({ method: 'GET', url: `${s.a.origin}/echo`, headers: { Authorization: 'Bearer sk-live-abcdef123456' } });
    assert.equal(s.a.requests.at(-1)!.headers.authorization, 'Bearer sk-live-abcdef123456', 'the server got it');
    assert.doesNotMatch(r, /sk-live-abcdef123456/);
    assert.equal(echoed(r).headers.authorization, '[redacted]');
  });
  it('a configured API key header is redacted too, and a bare token echoed on its own', async () => {
    const cfg = { allowedHosts: ['127.0.0.1'], defaultHeaders: { 'X-Api-Key': 'key-0123456789', Authorization: 'Token tok-9876543210' } };
    const r = await call({ method: 'POST', url: `${s.a.origin}/echo`, body: 'my token is tok-9876543210' }, {}, cfg);
    assert.doesNotMatch(r, /key-0123456789|tok-9876543210/);
    assert.equal(echoed(r).body, 'my token is [redacted]');
  });
  it('an Authorization value is not echoed in an error either', async () => {
    const r = await call({ method: 'GET', url: 'http://127.0.0.1:1/x', headers: { Authorization: 'Bearer sk-live-abcdef123456' } });
    assert.match(r, /^error: connection refused by 127\.0\.0\.1:1/);
    assert.doesNotMatch(r, /sk-live/);
  });
  it('argument errors do not echo header values', async () => {
    const r = await call({ method: 'GET', url: `${s.a.origin}/echo`, headers: { Authorization: 'Bearer sk-live-abc\r\nX-Injected: 1' } });
    assert.match(r, /^error: invalid arguments: headers\.Authorization: /);
    assert.doesNotMatch(r, /sk-live/);
  });
});

describe('http_request: limits', () => {
  it('times out with a result, not an exception', async () => {
    const t0 = Date.now();
    const r = await call({ method: 'GET', url: `${s.a.origin}/slow` }, { httpTimeoutMs: 200 });
    assert.match(r, /^error: timed out after 200 ms \(GET http:\/\/127\.0\.0\.1:\d+\/slow\)$/);
    assert.ok(Date.now() - t0 < 4000, `took ${Date.now() - t0} ms`);
  });
  it('throws when the run is aborted (before and during the call)', async () => {
    const pre = new AbortController();
    pre.abort(new Error('run cancelled'));
    await assert.rejects(httpRequestTool.execute({ method: 'GET', url: `${s.a.origin}/echo` }, {}, ctx({}, pre.signal)), /run cancelled/);
    const mid = new AbortController();
    setTimeout(() => mid.abort(new Error('run cancelled mid-call')), 100);
    await assert.rejects(httpRequestTool.execute({ method: 'GET', url: `${s.a.origin}/slow` }, {}, ctx({}, mid.signal)), /run cancelled mid-call/);
  });
  it('truncates a body past the cap and says so', async () => {
    const r = await call({ method: 'GET', url: `${s.a.origin}/big?n=5000` }, { httpMaxResponseBytes: 1024 });
    const body = bodyOf(r);
    assert.ok(body.startsWith('a'.repeat(1024) + '\n\n[truncated: the response is more than 1024 bytes; only the first 1024 bytes are shown]'));
    assert.doesNotMatch(body, /a{1025}/);
  });
  it('a body of exactly the cap is not truncated', async () => {
    assert.equal(bodyOf(await call({ method: 'GET', url: `${s.a.origin}/big?n=1024` }, { httpMaxResponseBytes: 1024 })), 'a'.repeat(1024));
  });
  it('stops reading an endless body at the cap', async () => {
    const t0 = Date.now();
    const r = await call({ method: 'GET', url: `${s.a.origin}/endless` }, { httpMaxResponseBytes: 100_000 });
    assert.match(r, /\[truncated: the response is more than 100000 bytes/);
    assert.ok(Date.now() - t0 < 3000);
  });
  it('describes a binary body instead of showing it', async () => {
    assert.match(await call({ method: 'GET', url: `${s.a.origin}/binary` }), /\n\n\(binary body of 10 bytes, image\/png; not shown\)$/);
  });
  it('refuses a request body over the limit without sending it', async () => {
    const before = s.a.requests.length;
    const r = await call({ method: 'POST', url: `${s.a.origin}/echo`, body: 'é'.repeat(600) }, { httpMaxRequestBytes: 1000 });
    assert.equal(r, 'error: request body is 1200 bytes; the limit is 1000');
    assert.equal(s.a.requests.length, before);
    assert.match(await call({ method: 'POST', url: `${s.a.origin}/echo`, body: 'é'.repeat(500) }, { httpMaxRequestBytes: 1000 }), /^HTTP 200/);
  });
  it('connection refused is a result', async () => {
    assert.match(await call({ method: 'GET', url: 'http://127.0.0.1:1/' }), /^error: connection refused by 127\.0\.0\.1:1$/);
  });
});

describe('http_request: arguments and configuration', () => {
  for (const [label, args, want] of [
    ['unknown method', { method: 'TRACE', url: 'http://x.test/' }, /^error: invalid arguments: method: /],
    ['missing url', { method: 'GET' }, /^error: invalid arguments: url: /],
    ['extra key', { method: 'GET', url: 'http://x.test/', verbose: true }, /^error: invalid arguments: /],
    ['relative url', { method: 'GET', url: '/path' }, /^error: invalid arguments: url is not an absolute URL$/],
    ['ftp url', { method: 'GET', url: 'ftp://x.test/' }, /^error: blocked: only http and https URLs are allowed \(got ftp\)$/],
    ['file url', { method: 'GET', url: 'file:///etc/passwd' }, /^error: blocked: only http and https/],
    ['credentials in URL', { method: 'GET', url: 'http://u:p@x.test/' }, /^error: blocked: credentials in the URL/],
    ['GET with body', { method: 'GET', url: 'http://x.test/', body: 'x' }, /^error: invalid arguments: a GET request cannot have a body$/],
    ['bad header name', { method: 'GET', url: 'http://x.test/', headers: { 'bad name': 'x' } }, /^error: invalid arguments: headers/],
    ['non-string header', { method: 'GET', url: 'http://x.test/', headers: { a: 1 } }, /^error: invalid arguments: headers\.a: /],
    ['not an object', 'GET http://x.test/', /^error: invalid arguments: arguments: /],
  ] as const) {
    it(`${label} is an error result`, async () => {
      assert.match(await call(args), want);
    });
  }
  it('config is strict and checks its entries', () => {
    assert.equal(httpRequestConfig.safeParse({}).success, true);
    assert.equal(httpRequestConfig.safeParse({ allowedHosts: ['API.example.com', '*.example.org'], defaultHeaders: { 'X-A': 'b' } }).success, true);
    assert.deepEqual(httpRequestConfig.parse({ allowedHosts: [' API.example.com '] }).allowedHosts, ['api.example.com']);
    for (const bad of [
      { extra: 1 },
      { allowedHosts: ['http://example.com'] },
      { allowedHosts: ['exa mple.com'] },
      { allowedHosts: 'example.com' },
      { defaultHeaders: { Host: 'x' } },
      { defaultHeaders: { Connection: 'close' } },
      { defaultHeaders: { 'X-A': 'line\nbreak' } },
      { defaultHeaders: { Authorization: 'Bearer x' } }, // credentials without allowedHosts
      { defaultHeaders: { 'X-Api-Key': 'x' }, allowedHosts: [] },
    ]) {
      assert.equal(httpRequestConfig.safeParse(bad).success, false, JSON.stringify(bad));
    }
    assert.equal(httpRequestConfig.safeParse({ defaultHeaders: { Authorization: 'Bearer x' }, allowedHosts: ['api.example.com'] }).success, true);
  });
  it('a misconfigured agent gets an error result', async () => {
    assert.match(await httpRequestTool.execute({ method: 'GET', url: `${s.a.origin}/echo` }, { nope: 1 } as never, ctx()), /^error: the tool is misconfigured/);
  });
});

// Self-signed, for tls.test only (test material, not a secret).
