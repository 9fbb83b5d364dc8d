import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { isAppError } from '../core/kernel/errors.ts';
import { hostClassifier, hostPolicy, type RequestFacts } from './host-check.ts';

describe('hostClassifier', () => {
  const classify = hostClassifier('https://svc.example.com', 'https://preview.example.com');
  const cases: Array<[string | undefined, 'app' | 'preview' | 'loopback' | null]> = [
    ['svc.example.com', 'app'],
    ['SVC.Example.COM', 'app'],
    ['svc.example.com.', 'app'],
    ['svc.example.com:443', 'app'],
    ['svc.example.com:8443', null], // another port is another origin
    ['preview.example.com', 'preview'],
    ['preview.example.com.:443', 'preview'],
    ['localhost', 'loopback'],
    ['localhost:8484', 'loopback'],
    ['LOCALHOST.:8484', 'loopback'],
    ['anything.localhost:1', 'loopback'],
    ['127.0.0.1', 'loopback'],
    ['127.1.2.3:80', 'loopback'],
    ['127.1', 'loopback'], // the URL parser's 127.0.0.1
    ['0x7f.0.0.1:8484', 'loopback'],
    ['[::1]', 'loopback'],
    ['[::1]:8484', 'loopback'],
    ['[0:0:0:0:0:0:0:1]:8484', 'loopback'],
    // What a rebinding page sends, and look-alikes.
    ['evil.example', null],
    ['evil.example:8484', null],
    ['localhost.evil.example', null],
    ['127.0.0.1.nip.io', null],
    ['svc.example.com.evil.example', null],
    ['evil-svc.example.com', null],
    ['0.0.0.0:8484', null],
    ['10.0.0.5:8484', null],
    ['[::ffff:127.0.0.1]', null],
    // Malformed: userinfo, paths, two Host headers joined, spaces, empty, missing, bad port.
    ['evil.example@localhost', null],
    ['localhost/x', null],
    ['localhost, evil.example', null],
    ['local host', null],
    ['', null],
    [undefined, null],
    ['localhost:99999', null],
    ['localhost:', null],
    ['.', null],
  ];
  for (const [host, want] of cases) {
    test(`${JSON.stringify(host)} → ${want}`, () => assert.equal(classify(host), want));
  }

  test('the defaults: localhost:8484 is the app, preview.localhost:8484 the preview (before loopback)', () => {
    const c = hostClassifier('http://localhost:8484', 'http://preview.localhost:8484');
    assert.equal(c('localhost:8484'), 'app');
    assert.equal(c('localhost'), 'app');
    assert.equal(c('preview.localhost:8484'), 'preview');
    assert.equal(c('localhost:9000'), 'loopback');
    assert.equal(c('other.localhost:8484'), 'loopback');
  });

  test('remembers answers without mixing them up, and stays bounded under random Hosts', () => {
    const c = hostClassifier('http://localhost:8484', 'http://preview.localhost:8484');
    for (let i = 0; i < 1000; i++) assert.equal(c(`h${i}.evil.example`), null);
    assert.equal(c('localhost:8484'), 'app');
    assert.equal(c('preview.localhost:8484'), 'preview');
  });
});

describe('hostPolicy', () => {
  const config = { SERVICE_APP_ORIGIN: 'https://svc.example.com', SERVICE_PREVIEW_ORIGIN: 'https://preview.example.com', SERVICE_TRUST_PROXY: false };
  const check = hostPolicy(config);
  const req = (over: Partial<RequestFacts>): RequestFacts => ({ method: 'POST', path: '/api/auth/register', host: 'svc.example.com', forwardedHost: undefined, origin: undefined, ...over });
  const verdict = (v: ReturnType<typeof check>) => (isAppError(v) ? `${v.status} ${v.code}` : v);

  test('a Host we do not serve → 421 misdirected_request, whatever the method', () => {
    for (const method of ['GET', 'POST', 'DELETE', 'OPTIONS']) assert.equal(verdict(check(req({ method, host: 'evil.example:8484' }))), '421 misdirected_request');
  });

  test('health probes are answered for any Host (orchestrators send the replica IP)', () => {
    for (const path of ['/api/health', '/api/health/live', '/api/health/ready']) {
      assert.equal(verdict(check(req({ method: 'GET', path, host: '10.0.0.5:8484' }))), 'loopback');
      assert.equal(verdict(check(req({ method: 'HEAD', path, host: undefined }))), 'loopback');
    }
    assert.equal(verdict(check(req({ method: 'POST', path: '/api/health', host: '10.0.0.5' }))), '421 misdirected_request');
    assert.equal(verdict(check(req({ method: 'GET', path: '/api/health/other', host: '10.0.0.5' }))), '421 misdirected_request');
  });

  test('state-changing requests: an Origin must be the app origin (or, on a loopback name, the very host)', () => {
    assert.equal(verdict(check(req({ origin: 'https://svc.example.com' }))), 'app');
    assert.equal(verdict(check(req({ origin: 'https://SVC.example.com.' }))), 'app');
    assert.equal(verdict(check(req({}))), 'app', 'no Origin (curl, SDKs, servers): the Host check alone');
    for (const origin of ['null', 'https://evil.example', 'http://svc.example.com', 'https://svc.example.com:8443', 'https://preview.example.com', 'not a url', 'file:///x']) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) assert.equal(verdict(check(req({ method, origin }))), '403 origin_refused', `${method} ${origin}`);
    }
    // Safe methods are not checked: a cross-origin GET reads nothing the browser would hand over.
    assert.equal(verdict(check(req({ method: 'GET', origin: 'https://evil.example' }))), 'app');
    // A same-origin form on a loopback address: the Origin is the host the request went to.
    assert.equal(verdict(check(req({ host: '127.0.0.1:8484', origin: 'http://127.0.0.1:8484' }))), 'loopback');
    assert.equal(verdict(check(req({ host: 'localhost', origin: 'http://localhost' }))), 'loopback');
    assert.equal(verdict(check(req({ host: '127.0.0.1:8484', origin: 'http://127.0.0.1:9999' }))), '403 origin_refused');
    assert.equal(verdict(check(req({ host: 'localhost:8484', origin: 'http://app.localhost:8484' }))), '403 origin_refused');
    // The preview origin runs untrusted code: never state-changing, even to itself.
    assert.equal(verdict(check(req({ host: 'preview.example.com', origin: 'https://preview.example.com' }))), '403 origin_refused');
  });

  test('path-credential webhooks take any Origin (other sites call them; nothing ambient to borrow)', () => {
    const path = '/api/public/webhooks/workers/svc_whk_x';
    assert.equal(verdict(check(req({ path, origin: 'https://elsewhere.example' }))), 'app');
    assert.equal(verdict(check(req({ path, host: 'evil.example' }))), '421 misdirected_request', 'the Host check still applies');
  });

  test('X-Forwarded-Host: ignored unless SERVICE_TRUST_PROXY; then its last entry must pass too (it can only refuse)', () => {
    assert.equal(verdict(check(req({ forwardedHost: 'evil.example' }))), 'app');
    const proxied = hostPolicy({ ...config, SERVICE_TRUST_PROXY: true });
    assert.equal(verdict(proxied(req({ host: '127.0.0.1:8484', forwardedHost: 'evil.example' }))), '421 misdirected_request');
    assert.equal(verdict(proxied(req({ host: '127.0.0.1:8484', forwardedHost: 'evil.example, svc.example.com' }))), 'loopback');
    assert.equal(verdict(proxied(req({ host: '127.0.0.1:8484', forwardedHost: 'svc.example.com' }))), 'loopback');
    assert.equal(verdict(proxied(req({ host: 'evil.example', forwardedHost: 'svc.example.com' }))), '421 misdirected_request', 'the Host itself still counts');
    assert.equal(verdict(proxied(req({ host: '127.0.0.1:8484' }))), 'loopback');
  });
});
