import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { httpError, parseErrorBody, parseRetryAfter, transportError } from './errors.ts';

describe('upstream error normalisation', () => {
  it('reads OpenAI and Anthropic error bodies, and plain text', () => {
    assert.deepEqual(parseErrorBody('{"error":{"message":"bad","type":"invalid_request_error","param":"model","code":"model_not_found"}}'),
      { message: 'bad', type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
    assert.deepEqual(parseErrorBody('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
      { message: 'Overloaded', type: 'server_error', code: 'overloaded_error', param: null });
    assert.deepEqual(parseErrorBody('[{"error":{"message":"m","code":400}}]').message, 'm');
    assert.deepEqual(parseErrorBody('upstream exploded'), { message: 'upstream exploded' });
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
