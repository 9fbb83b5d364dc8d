import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createHttpRequestTool, type HttpRequestConfig } from './http-request.ts';
import { bodyOf, call, echoed, fakeDns, useTargets } from './http-request.test-fixture.ts';
import { classifyAddress } from '../net/net-address.ts';
import type { ToolLimits } from './types.ts';

const s = useTargets();

describe('http_request: SSRF guard (private addresses disallowed)', () => {
  // A = the 127.0.0.1 server's port, B = 127.0.0.2's, V6 = ::1's (filled in once they listen).
  const refused = [
    'http://127.0.0.1:A/echo',
    'http://localhost:A/echo',
    'http://LOCALHOST.:A/echo',
    'http://[::1]:V6/echo',
    'http://0.0.0.0:A/echo',
    'http://[::ffff:127.0.0.1]:A/echo',
    'http://2130706433:A/echo', // 127.0.0.1 as one decimal number
    'http://0x7f.1:A/echo',
    'http://127.1:A/echo',
    'http://127.0.0.2:B/echo',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'http://100.64.0.1/',
    'http://192.168.1.1/',
    'http://172.16.0.1/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'https://127.0.0.1:A/echo',
  ];
  const fill = (u: string) => u.replace(':A/', `:${s.a.port}/`).replace(':B/', `:${s.b.port}/`).replace(':V6/', `:${s.v6.port}/`);
  for (const url of refused) {
    it(`refuses ${url} without connecting`, async () => {
      const before = s.a.connections + s.b.connections + s.v6.connections;
      const r = await call({ method: 'GET', url: fill(url) }, { httpAllowPrivate: false });
      assert.match(r, /^error: blocked: .* is not a public address \(/);
      assert.equal(s.a.connections + s.b.connections + s.v6.connections, before, 'no server saw a connection');
    });
  }
  it('control: the same loopback URLs do connect when private addresses are allowed', async () => {
    for (const url of [`${s.a.origin}/echo`, `http://localhost:${s.a.port}/echo`, `http://0.0.0.0:${s.a.port}/echo`, `http://[::ffff:127.0.0.1]:${s.a.port}/echo`, `http://0x7f.1:${s.a.port}/echo`, `http://[::1]:${s.v6.port}/echo`]) {
      const before = s.a.requests.length + s.v6.requests.length;
      assert.match(await call({ method: 'GET', url }, { httpAllowPrivate: true }), /^HTTP 200 OK/, url);
      assert.equal(s.a.requests.length + s.v6.requests.length, before + 1, url);
    }
  });
  it('a host with one private address among public ones is refused', async () => {
    const dns = fakeDns({ 'mixed.test': ['93.184.216.34', '127.0.0.1'] });
    const tool = createHttpRequestTool({ resolve: dns.resolve });
    const r = await call({ method: 'GET', url: `http://mixed.test:${s.a.port}/echo` }, { httpAllowPrivate: false }, {}, tool);
    assert.match(r, /^error: blocked: mixed\.test resolves to 127\.0\.0\.1, which is not a public address \(loopback\)/);
  });
  it('connects to the address it checked: a name the system cannot resolve still reaches the vetted address, looked up once', async () => {
    // rebind.test exists only in the fake DNS. If the connection did its own lookup (where a
    // rebinding server would answer differently) it would fail with ENOTFOUND.
    const dns = fakeDns({ 'rebind.test': ['127.0.0.2'] });
    const tool = createHttpRequestTool({ resolve: dns.resolve });
    const before = s.b.requests.length;
    const r = await call({ method: 'GET', url: `http://rebind.test:${s.b.port}/echo` }, { httpAllowPrivate: true }, {}, tool);
    assert.match(r, /^HTTP 200 OK/);
    assert.equal(s.b.requests.length, before + 1);
    assert.equal(s.b.requests.at(-1)!.headers.host, `rebind.test:${s.b.port}`);
    assert.deepEqual(dns.asked, ['rebind.test']);
  });
  it('a DNS failure is a result', async () => {
    const tool = createHttpRequestTool({ resolve: fakeDns({}).resolve });
    assert.equal(await call({ method: 'GET', url: 'http://nowhere.test/' }, {}, {}, tool), 'error: could not resolve host nowhere.test (ENOTFOUND)');
  });
});

describe('http_request: allowed hosts', () => {
  const dns = fakeDns({ 'api.test': ['127.0.0.1'], 'deep.api.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] });
  const tool = createHttpRequestTool({ resolve: dns.resolve });
  const get = (host: string, over: Partial<ToolLimits>, cfg: HttpRequestConfig = {}) =>
    call({ method: 'GET', url: `http://${host}:${s.a.port}/echo` }, over, cfg, tool);

  it('configuration list: exact names and *.suffix', async () => {
    const over = { httpAllowedHosts: ['api.test', '*.api.test'] };
    assert.match(await get('api.test', over), /^HTTP 200/);
    assert.match(await get('deep.api.test', over), /^HTTP 200/);
    const before = s.a.connections;
    assert.match(await get('other.test', over), /^error: blocked: host other\.test is not in the allowed hosts/);
    assert.match(await get('127.0.0.1', over), /^error: blocked: host 127\.0\.0\.1 is not in the allowed hosts/);
    assert.equal(s.a.connections, before);
  });
  it('*.suffix does not match the bare domain', async () => {
    assert.match(await get('api.test', { httpAllowedHosts: ['*.api.test'] }), /^error: blocked: host api\.test/);
  });
  it('agent list alone', async () => {
    assert.match(await get('api.test', {}, { allowedHosts: ['api.test'] }), /^HTTP 200/);
    assert.match(await get('other.test', {}, { allowedHosts: ['api.test'] }), /^error: blocked: host other\.test/);
  });
  it('agent list narrows the configuration list and cannot widen it', async () => {
    const over = { httpAllowedHosts: ['*.test'] };
    assert.match(await get('api.test', over, { allowedHosts: ['api.test'] }), /^HTTP 200/);
    assert.match(await get('other.test', over, { allowedHosts: ['api.test'] }), /^error: blocked: host other\.test/);
    assert.match(await get('127.0.0.1', over, { allowedHosts: ['127.0.0.1'] }), /^error: blocked: host 127\.0\.0\.1 is not in the allowed hosts \(\*\.test\)/);
  });
  it('the allowed-host check does not lift the address check', async () => {
    assert.match(await get('api.test', { httpAllowPrivate: false, httpAllowedHosts: ['api.test'] }), /^error: blocked: api\.test resolves to 127\.0\.0\.1/);
  });
});

describe('http_request: redirects', () => {
  it('follows up to 5 redirects and refuses a sixth', async () => {
    const r = await call({ method: 'GET', url: `${s.a.origin}/chain?n=5` });
    assert.match(r, /^HTTP 200 OK\nfinal url: .*\/chain\?n=0 \(after 5 redirects\)/);
    assert.equal(bodyOf(r), 'end of chain');
    const before = s.a.requests.length;
    assert.match(await call({ method: 'GET', url: `${s.a.origin}/chain?n=6` }), /^error: too many redirects \(more than 5\)/);
    assert.equal(s.a.requests.length, before + 6, 'the sixth redirect was not followed');
  });
  it('every hop is checked against the allowed hosts', async () => {
    const to = encodeURIComponent(`http://localhost:${s.a.port}/echo`);
    const before = s.a.requests.length;
    const r = await call({ method: 'GET', url: `${s.a.origin}/redirect?to=${to}` }, { httpAllowedHosts: ['127.0.0.1'] });
    assert.match(r, /^error: blocked: host localhost is not in the allowed hosts .*\(redirected from /);
    assert.equal(s.a.requests.length, before + 1, 'only the redirect itself was requested');
    // Control: with localhost allowed the same redirect is followed.
    assert.match(await call({ method: 'GET', url: `${s.a.origin}/redirect?to=${to}` }, { httpAllowedHosts: ['127.0.0.1', 'localhost'] }), /^HTTP 200 OK/);
  });

  // The first hop must pass the address check and still reach a local server: the injected
  // classifier treats 127.0.0.1 (and only it) as public, the real one judges everything else.
  const firstHopPublic = (ip: string) => (ip === '127.0.0.1' ? 'public' : classifyAddress(ip));
  for (const [label, target, dnsTable] of [
    ['an IP literal', () => `http://127.0.0.2:${s.b.port}/echo`, {}],
    ['a name resolving to a blocked address', () => `http://inside.test:${s.b.port}/echo`, { 'inside.test': ['127.0.0.2'] }],
    ['IPv6 loopback', () => `http://[::1]:${s.v6.port}/echo`, {}],
  ] as const) {
    it(`a redirect from an allowed address to ${label} is refused before connecting`, async () => {
      const dns = fakeDns({ 'public.test': ['127.0.0.1'], ...dnsTable });
      const tool = createHttpRequestTool({ resolve: dns.resolve, classify: firstHopPublic });
      const beforeA = s.a.requests.length;
      const beforeOthers = s.b.connections + s.v6.connections;
      const url = `http://public.test:${s.a.port}/redirect?status=307&to=${encodeURIComponent(target())}`;
      const r = await call({ method: 'GET', url }, { httpAllowPrivate: false }, {}, tool);
      assert.match(r, /^error: blocked: .* is not a public address \(loopback\).*\(redirected from http:\/\/public\.test:/);
      assert.equal(s.a.requests.length, beforeA + 1, 'the first hop was really made');
      assert.equal(s.b.connections + s.v6.connections, beforeOthers, 'the redirect target saw no connection');
      // Control: when the target's address counts as public too, the same redirect is followed.
      const open = createHttpRequestTool({ resolve: dns.resolve, classify: () => 'public' });
      assert.match(await call({ method: 'GET', url }, { httpAllowPrivate: false }, {}, open), /^HTTP 200 OK/);
      assert.equal(s.b.requests.length + s.v6.requests.length > 0, true);
    });
  }

  it('303 turns a POST into a GET without body; 307 keeps method and body', async () => {
    const to = encodeURIComponent('/echo');
    const r303 = echoed(await call({ method: 'POST', url: `${s.a.origin}/redirect?status=303&to=${to}`, body: '{"a":1}' }));
    assert.equal(r303.method, 'GET');
    assert.equal(r303.body, '');
    assert.equal(r303.headers['content-type'], undefined);
    const r307 = echoed(await call({ method: 'PUT', url: `${s.a.origin}/redirect?status=307&to=${to}`, body: '{"a":1}' }));
    assert.equal(r307.method, 'PUT');
    assert.equal(r307.body, '{"a":1}');
  });
  it('credentials are kept on same-origin redirects and dropped on cross-origin ones', async () => {
    const headers = { Authorization: 'Bearer sk-live-abcdef123456', 'X-Plain': 'p' };
    await call({ method: 'GET', url: `${s.a.origin}/redirect?to=${encodeURIComponent('/echo')}`, headers });
    assert.equal(s.a.requests.at(-1)!.headers.authorization, 'Bearer sk-live-abcdef123456');
    const r = await call({ method: 'GET', url: `${s.a.origin}/redirect?to=${encodeURIComponent(`${s.b.origin}/echo`)}`, headers });
    assert.equal(s.b.requests.at(-1)!.headers.authorization, undefined);
    assert.equal(s.b.requests.at(-1)!.headers['x-plain'], 'p');
    assert.match(r, /note: credential headers were not sent to http:\/\/127\.0\.0\.2:/);
  });
  it('a redirect without Location is returned as is', async () => {
    assert.match(await call({ method: 'GET', url: `${s.a.origin}/redirect?status=302` }), /^HTTP 302 Found\n/);
  });
  it('a redirect to another scheme is refused', async () => {
    const r = await call({ method: 'GET', url: `${s.a.origin}/redirect?to=${encodeURIComponent('file:///etc/passwd')}` });
    assert.match(r, /^error: blocked: only http and https URLs are allowed \(got file\)/);
  });
});

const TLS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgwgFBL5VzhBhrrOtc
qSCqu9irTgmMF7ldi9k8JGlXruGhRANCAAQDq/vm7qOp2I+epScmEoBMWGyXMhLL
vNAmehyz4lrGj3Cgf/R/mCByWDKmhJWLDDFWj/10KymD7P/ADzRlryMW
-----END PRIVATE KEY-----`;
const TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIBkzCCATigAwIBAgIUA+vT/YHEGF/X36gX6pLUA5aJuo8wCgYIKoZIzj0EAwIw
EzERMA8GA1UEAwwIdGxzLnRlc3QwIBcNMjYxMTIyMDA1MjM3WhgPMjEyNjEwMjkw
MDUyMzdaMBMxETAPBgNVBAMMCHRscy50ZXN0MFkwEwYHKoZIzj0CAQYIKoZIzj0D
AQcDQgAEA6v75u6jqdiPnqUnJhKATFhslzISy7zQJnocs+Jaxo9woH/0f5ggclgy
poSViwwxVo/9dCspg+z/wA80Za8jFqNoMGYwHQYDVR0OBBYEFEHANdRQIRsb/Fu6
jA7JfabgwQ2yMB8GA1UdIwQYMBaAFEHANdRQIRsb/Fu6jA7JfabgwQ2yMA8GA1Ud
EwEB/wQFMAMBAf8wEwYDVR0RBAwwCoIIdGxzLnRlc3QwCgYIKoZIzj0EAwIDSQAw
RgIhALHB0SGBDH3iLd+iasXEgevyjgK88yff0ntwUkflMFE9AiEA9eHZGR3DZhv1
5wCR1xX3eyFY38nPA/hC/p1meQv7Ta8=
-----END CERTIFICATE-----`;

describe('http_request: https', () => {
  it('connects to the vetted address, sends the URL hostname as SNI, and verifies the certificate', async () => {
    const sni: string[] = [];
    let served = 0;
    const server = createTlsServer({
      key: TLS_KEY,
      cert: TLS_CERT,
      SNICallback: (name, cb) => (sni.push(name), cb(null, undefined)),
    }, (_req, res) => (served++, res.end('secret page')));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const tool = createHttpRequestTool({ resolve: fakeDns({ 'tls.test': ['127.0.0.1'] }).resolve });
      const r = await call({ method: 'GET', url: `https://tls.test:${port}/` }, {}, {}, tool);
      assert.match(r, /^error: TLS error with tls\.test:\d+: self[- ]signed certificate/);
      assert.deepEqual(sni, ['tls.test']);
      assert.equal(served, 0, 'an unverified server never gets the request');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
