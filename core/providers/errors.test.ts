import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { AddressRefused } from '../net/address-guard.ts';
import { httpError, parseErrorBody, parseRetryAfter, streamError, transportError } from './errors.ts';

describe('upstream error normalisation', () => {
  it('reads OpenAI and Anthropic error bodies', () => {
    assert.deepEqual(parseErrorBody('{"error":{"message":"bad","type":"invalid_request_error","param":"model","code":"model_not_found"}}'),
      { message: 'bad', type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
    assert.deepEqual(parseErrorBody('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
      { message: 'Overloaded', type: 'server_error', code: 'overloaded_error', param: null });
    assert.deepEqual(parseErrorBody('[{"error":{"message":"m","code":400}}]').message, 'm');
  });

  it('parses retry-after-ms, retry-after seconds and HTTP dates', () => {
    assert.equal(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '9' }), 250);
    assert.equal(parseRetryAfter({ 'retry-after': '2' }), 2000);
    assert.equal(parseRetryAfter({ 'retry-after': new Date(10_000).toUTCString() }, 7_000), 3000);
    assert.equal(parseRetryAfter({}), undefined);
    assert.equal(parseRetryAfter({ 'retry-after': 'soon' }), undefined);
  });

  it('429 keeps its status, is noWork, and carries retryAfterMs', () => {
    const e = httpError('openai', 429, { 'retry-after': '1' }, '{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}');
    assert.equal(e.status, 429);
    assert.equal(e.noWork, true);
    assert.equal(e.retryAfterMs, 1000);
    assert.deepEqual(e.body.error, { message: 'slow down', type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' });
  });

  it('5xx (and 529) become 502 server_error, not noWork', () => {
    for (const s of [500, 503, 529]) {
      const e = httpError('anthropic', s, {}, '{"type":"error","error":{"type":"api_error","message":"boom"}}');
      assert.equal(e.status, 502);
      assert.equal(e.noWork, false);
      assert.equal(e.body.error.type, 'server_error');
      assert.equal(e.body.error.code, 'upstream_error');
      assert.match(e.body.error.message, new RegExp(`\\(${s}\\): boom`));
    }
  });

  it('503 with Retry-After is noWork (refused before any work), with its delay; 500 with one is not', () => {
    const e = httpError('openai', 503, { 'retry-after': '7' }, '{"error":{"message":"overloaded"}}');
    assert.equal(e.status, 502);
    assert.equal(e.noWork, true);
    assert.equal(e.retryAfterMs, 7000);
    assert.equal(httpError('openai', 500, { 'retry-after': '7' }, '').noWork, false);
  });

  it('4xx keep status and body; 401/403 from the upstream become 502 upstream_auth_failed', () => {
    const e = httpError('openai', 400, {}, '{"error":{"message":"bad param","type":"invalid_request_error","param":"temperature","code":null}}');
    assert.equal(e.status, 400);
    assert.deepEqual(e.body.error, { message: 'bad param', type: 'invalid_request_error', param: 'temperature', code: null });
    const a = httpError('anthropic', 401, {}, '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}');
    assert.equal(a.status, 502);
    assert.equal(a.body.error.code, 'upstream_auth_failed');
  });

  it('noWork only for refused, DNS and connect-timeout failures', () => {
    const err = (code: string) => Object.assign(new Error(code), { code });
    for (const c of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']) assert.equal(transportError('groq', err(c)).noWork, true, c);
    const agg = Object.assign(new AggregateError([err('ECONNREFUSED'), err('ECONNREFUSED')]), {});
    assert.equal(transportError('groq', agg).noWork, true);
    for (const c of ['ECONNRESET', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']) assert.equal(transportError('groq', err(c)).noWork, false, c);
    assert.equal(transportError('groq', err('UND_ERR_HEADERS_TIMEOUT')).status, 504);
    const ac = new AbortController();
    ac.abort();
    assert.equal(transportError('groq', err('UND_ERR_ABORTED'), ac.signal).status, 499);
  });
});

describe('upstream text reaches callers and logs only as a short, sanitised message (issue 12 items 1, 8)', () => {
  const everywhere = (e: { message: string; body: unknown }) => `${e.message} ${JSON.stringify(e.body)}`;

  it('a body that is not JSON (an internal page, a metadata document) is never echoed', () => {
    const body = `<html><title>Admin</title>INTERNAL-ONLY root:x:0:0 ${'x'.repeat(2000)}</html>`;
    for (const s of [302, 400, 401, 404, 429, 500, 503]) {
      const e = httpError('openai-compatible', s, {}, body);
      assert.ok(!everywhere(e).includes('INTERNAL-ONLY'), `status ${s}: ${e.message}`);
      assert.match(e.message, new RegExp(`HTTP ${s}`));
    }
    assert.deepEqual(parseErrorBody('upstream exploded'), {});
  });

  it('an error message is cut to a few hundred characters, control characters gone', () => {
    const e = httpError('openai', 400, {}, JSON.stringify({ error: { message: `bad\r\nX-Injected: 1\u0000${'y'.repeat(5000)}`, param: 'p'.repeat(500), code: 'c\nd' } }));
    assert.ok(e.message.length <= 320, String(e.message.length));
    assert.ok(!/[\u0000-\u001f\u007f]/.test(e.message));
    assert.equal(e.body.error.param, null, 'an implausible param is dropped');
    assert.equal(e.body.error.code, null, 'an implausible code is dropped');
  });

  it("the account's own key is redacted wherever an upstream echoes it (401/403 included)", () => {
    const key = 'acct-KEY-0123456789abcdef-Q9';
    for (const s of [400, 401, 403, 429, 500]) {
      const e = httpError('openai', s, {}, JSON.stringify({ error: { message: `Incorrect API key provided: ${key}. Also ${key.slice(0, 20)}` } }), [key]);
      assert.ok(!everywhere(e).includes(key), `status ${s}: ${e.message}`);
      assert.match(e.message, /\[redacted\]/);
    }
  });

  it('Bearer tokens and provider-style keys are redacted even when not known', () => {
    for (const secret of ['sk-proj-abcdefghijklmnop1234', 'sk-ant-api03-abcdefghijklmnopqrstu', 'AIzaSyA1234567890abcdefghijklmnopqrs', 'gsk_abcdefghijklmnopqrstuvwx', 'svc_live_abcdefghijklmnop_1234']) {
      const e = httpError('openai', 401, {}, JSON.stringify({ error: { message: `key ${secret} refused` } }));
      assert.ok(!everywhere(e).includes(secret), e.message);
    }
    const b = httpError('openai', 500, {}, JSON.stringify({ error: { message: 'sent Authorization: Bearer abc.def-ghi_jkl~123 upstream' } }));
    assert.ok(!b.message.includes('abc.def-ghi_jkl~123'), b.message);
    const s = streamError('openrouter', { error: { message: 'Bearer zzzzzzzzzzzzzzzz failed' } });
    assert.ok(!s.message.includes('zzzzzzzzzzzzzzzz'), s.message);
  });

  it('a connection the address guard refused is 502 upstream_address_refused, noWork, naming the variable', () => {
    const refused = new AddressRefused('10.0.0.7', 'private');
    const e = transportError('openai-compatible', Object.assign(new Error('connect failed'), { cause: refused }));
    assert.equal(e.status, 502);
    assert.equal(e.noWork, true);
    assert.equal(e.body.error.code, 'upstream_address_refused');
    assert.match(e.message, /private/);
    assert.match(e.message, /SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS/);
  });
});
