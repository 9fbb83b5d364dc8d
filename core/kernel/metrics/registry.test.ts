import assert from 'node:assert/strict';
import { test } from 'vitest';
import { createMetrics } from './registry.ts';

test('http(): one series per (method, route, status), counted under its own labels', async () => {
  const m = createMetrics({ defaults: false });
  const a = m.http('POST', '/api/v1/chat/completions', 200);
  assert.equal(m.http('POST', '/api/v1/chat/completions', 200), a, 'the same labels give the same series');
  for (const [method, route, status] of [['GET', '/api/v1/chat/completions', 200], ['POST', '/api/v1/models', 200], ['POST', '/api/v1/chat/completions', 429]] as const) {
    assert.notEqual(m.http(method, route, status), a, `${method} ${route} ${status}`);
  }
  a.count.inc();
  a.count.inc();
  m.http('POST', '/api/v1/chat/completions', 429).count.inc();
  m.http('GET', '/api/v1/chat/completions', 200).duration.observe(0.002);
  const text = await m.registry.metrics();
  assert.match(text, /^svc_http_requests_total\{method="POST",route="\/api\/v1\/chat\/completions",status="200"\} 2$/m);
  assert.match(text, /^svc_http_requests_total\{method="POST",route="\/api\/v1\/chat\/completions",status="429"\} 1$/m);
  assert.match(text, /^svc_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/chat\/completions",status="200"\} 1$/m);
});
