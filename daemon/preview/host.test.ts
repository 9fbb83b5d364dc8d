import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { hostName, previewHostMatcher, requestHost } from './host.ts';

const req = (...raw: string[]) => ({ rawHeaders: raw }) as unknown as IncomingMessage;

describe('preview host classification', () => {
  it('host names compare without port, case or trailing dot', () => {
    assert.equal(hostName('preview.localhost:8484'), 'preview.localhost');
    assert.equal(hostName('PREVIEW.Localhost'), 'preview.localhost');
    assert.equal(hostName('preview.localhost.:8484'), 'preview.localhost');
    assert.equal(hostName('[::1]:8484'), '[::1]');
    assert.equal(hostName(''), '');
  });

  it('matches the preview origin in every spelling, and nothing else', () => {
    const is = previewHostMatcher({ SERVICE_PREVIEW_ORIGIN: 'http://preview.localhost:8484', SERVICE_TRUST_PROXY: false });
    for (const h of ['preview.localhost:8484', 'preview.localhost', 'PREVIEW.LOCALHOST:8484', 'preview.localhost.', 'preview.localhost.:8484', 'preview.localhost:9999']) {
      assert.equal(is(req('Host', h)), true, h);
    }
    for (const h of ['localhost:8484', '127.0.0.1:8484', 'preview.localhost.evil.test', 'xpreview.localhost', 'evil.test', '']) assert.equal(is(req('Host', h)), false, h);
    assert.equal(is(req()), false, 'no Host header');
    assert.equal(is(req('host', 'preview.localhost')), true, 'header names are case-insensitive');
  });

  it('X-Forwarded-Host counts only behind a trusted proxy, and then its last entry wins', () => {
    const direct = previewHostMatcher({ SERVICE_PREVIEW_ORIGIN: 'https://preview.example.com', SERVICE_TRUST_PROXY: false });
    const proxied = previewHostMatcher({ SERVICE_PREVIEW_ORIGIN: 'https://preview.example.com', SERVICE_TRUST_PROXY: true });
    const viaProxy = req('Host', 'app.example.com', 'X-Forwarded-Host', 'preview.example.com');
    assert.equal(direct(viaProxy), false);
    assert.equal(proxied(viaProxy), true);
    // The proxy's entry is the last one; a client's own value before it does not count.
    assert.equal(proxied(req('Host', 'x', 'X-Forwarded-Host', 'preview.example.com, app.example.com')), false);
    assert.equal(proxied(req('Host', 'x', 'x-forwarded-host', 'app.example.com, preview.example.com')), true);
    // A trusted forwarded host replaces the Host header, in both directions.
    assert.equal(proxied(req('Host', 'preview.example.com', 'X-Forwarded-Host', 'app.example.com')), false);
    assert.equal(proxied(req('Host', 'preview.example.com')), true);
    assert.equal(requestHost(['Host', 'a', 'X-Forwarded-Host', ' '], true), 'a', 'an empty forwarded value falls back to Host');
  });
});
