import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { loadConfig } from '../kernel/config/index.ts';
import { startTestServer, type TestServer } from '../../test/helpers/http-target.ts';
import { getTool, toolLimitsFromConfig, toolRegistry } from './registry.ts';

describe('tool registry', () => {
  it('lists http_request, keyed by its type', () => {
    assert.ok(toolRegistry.has('http_request'));
    for (const [type, tool] of toolRegistry) assert.equal(tool.type, type);
    assert.equal(getTool('http_request'), toolRegistry.get('http_request'));
    assert.equal(getTool('no_such_tool'), undefined);
    assert.equal(getTool('__proto__'), undefined);
  });
  it('every tool has a function-call shape the model can use and a strict config schema', () => {
    for (const tool of toolRegistry.values()) {
      assert.match(tool.type, /^[a-z][a-z0-9_]{0,63}$/, 'a valid function name');
      assert.ok(tool.description.length > 20);
      assert.equal(tool.parameters.type, 'object');
      assert.equal(typeof tool.parameters.properties, 'object');
      assert.doesNotThrow(() => JSON.stringify(tool.parameters));
      assert.equal(tool.config.safeParse({}).success, true, `${tool.type}: an empty config is valid`);
      assert.equal(tool.config.safeParse({ surelyNotAnOption: 1 }).success, false, `${tool.type}: unknown keys are refused`);
    }
  });
});

describe('toolLimitsFromConfig', () => {
  it('maps the defaults', () => {
    assert.deepEqual(toolLimitsFromConfig(loadConfig({ HOME: '/h' }).config), {
      httpTimeoutMs: 10_000,
      httpMaxResponseBytes: 1024 * 1024,
      httpMaxRequestBytes: 256 * 1024,
      httpAllowPrivate: false,
      httpAllowedHosts: [],
    });
  });
  it('maps every variable', () => {
    const { config } = loadConfig({
      HOME: '/h',
      SERVICE_TOOL_HTTP_TIMEOUT_MS: '2500',
      SERVICE_TOOL_HTTP_MAX_RESPONSE_BYTES: '4096',
      SERVICE_TOOL_HTTP_MAX_REQUEST_BYTES: '2048',
      SERVICE_TOOL_HTTP_ALLOW_PRIVATE: 'true',
      SERVICE_TOOL_HTTP_ALLOWED_HOSTS: 'api.example.com, *.example.org',
    });
    assert.deepEqual(toolLimitsFromConfig(config), {
      httpTimeoutMs: 2500,
      httpMaxResponseBytes: 4096,
      httpMaxRequestBytes: 2048,
      httpAllowPrivate: true,
      httpAllowedHosts: ['api.example.com', '*.example.org'],
    });
  });
});

describe('http_request through the registry with configured limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());
  const run = (env: Record<string, string>, args: unknown) =>
    getTool('http_request')!.execute(args, {}, {
      signal: new AbortController().signal,
      limits: toolLimitsFromConfig(loadConfig({ HOME: '/h', ...env }).config),
    });

  it('the default configuration refuses the local server without connecting', async () => {
    const r = await run({}, { method: 'GET', url: `${server.origin}/echo` });
    assert.match(r, /^error: blocked: 127\.0\.0\.1 is not a public address \(loopback\)/);
    assert.equal(server.connections, 0);
  });
  it('SERVICE_TOOL_HTTP_ALLOW_PRIVATE=true reaches it, and the response cap applies', async () => {
    const r = await run({ SERVICE_TOOL_HTTP_ALLOW_PRIVATE: 'true', SERVICE_TOOL_HTTP_MAX_RESPONSE_BYTES: '2048' }, { method: 'GET', url: `${server.origin}/big?n=3000` });
    assert.match(r, /^HTTP 200 OK\n/);
    assert.match(r, /\[truncated: the response is more than 2048 bytes/);
    assert.equal(server.requests.length, 1);
  });
  it('SERVICE_TOOL_HTTP_ALLOWED_HOSTS applies', async () => {
    const env = { SERVICE_TOOL_HTTP_ALLOW_PRIVATE: 'true', SERVICE_TOOL_HTTP_ALLOWED_HOSTS: 'localhost' };
    assert.match(await run(env, { method: 'GET', url: `${server.origin}/echo` }), /^error: blocked: host 127\.0\.0\.1 is not in the allowed hosts \(localhost\)/);
    assert.match(await run(env, { method: 'GET', url: `http://localhost:${server.port}/echo` }), /^HTTP 200 OK/);
  });
  it('SERVICE_TOOL_HTTP_MAX_REQUEST_BYTES and SERVICE_TOOL_HTTP_TIMEOUT_MS apply', async () => {
    const env = { SERVICE_TOOL_HTTP_ALLOW_PRIVATE: 'true', SERVICE_TOOL_HTTP_MAX_REQUEST_BYTES: '10', SERVICE_TOOL_HTTP_TIMEOUT_MS: '150' };
    assert.equal(await run(env, { method: 'POST', url: `${server.origin}/echo`, body: 'x'.repeat(11) }), 'error: request body is 11 bytes; the limit is 10');
    assert.match(await run(env, { method: 'GET', url: `${server.origin}/slow` }), /^error: timed out after 150 ms/);
  });
});
