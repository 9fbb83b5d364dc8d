// The provider engine's address guard (issue 12, item 1): a provider account's baseUrl may only
// reach public addresses, checked on every connection after DNS; the operator's local target and
// SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS are the only ways to a private one. Real sockets on
// loopback stand in for the internal services an attacker would aim at; DNS is played by a resolver.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, it } from 'vitest';
import type { ChatRequest } from '../../core/wire/openai.ts';
import { createProviderEngine } from '../../core/providers/engine.ts';
import { UpstreamError, type ProviderEngine, type Target } from '../../core/providers/types.ts';
import type { Resolver } from '../../core/net/http-guard.ts';
import { fakeOpenAi, type FakeUpstream } from '../helpers/fake-upstream.ts';

const CHAT: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
const SECRET = 'INTERNAL-ONLY-7f3a';

/** An "internal service": answers anything with a secret, and counts who asked. */
async function internalService(): Promise<{ url: string; port: number; hits: () => number; close(): Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits++;
    res.writeHead(500, { 'content-type': 'text/plain' }).end(`${SECRET} aws_secret_access_key=abc`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/v1`, port, hits: () => hits, close: () => new Promise((r) => server.close(() => r())) };
}

/** DNS played from a table; unknown names do not resolve. */
const dns = (table: Record<string, string[]>): Resolver => async (host) => {
  const list = table[host];
  if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const refused = (cls?: string) => (e: unknown) => {
  assert.ok(e instanceof UpstreamError, String(e));
  assert.equal(e.status, 502);
  assert.equal(e.noWork, true);
  assert.equal(e.body.error.code, 'upstream_address_refused');
  if (cls) assert.match(e.body.error.message, new RegExp(`\\(${cls.replace(/[()]/g, '\\$&')}\\)`));
  assert.ok(!JSON.stringify(e.body).includes(SECRET));
  return true;
};

const target = (baseUrl: string, over: Partial<Target> = {}): Target => ({ accountId: 'pa_x', provider: 'openai-compatible', baseUrl, apiKey: 'k-123456', ...over });

describe('the provider address guard', () => {
  let internal: Awaited<ReturnType<typeof internalService>>;
  let fake: FakeUpstream;
  let port: number;
  const engines: ProviderEngine[] = [];
  const engine = (o: Parameters<typeof createProviderEngine>[0] = {}) => {
    const e = createProviderEngine({ headersTimeoutMs: 2000, ...o });
    engines.push(e);
    return e;
  };
  beforeAll(async () => {
    internal = await internalService();
    fake = await fakeOpenAi();
    port = Number(new URL(fake.origin).port);
  });
  afterAll(async () => {
    await Promise.all(engines.map((e) => e.close()));
    await internal.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  it('refuses loopback, private, link-local and other non-public literals on every call kind; nothing reaches the service', async () => {
    const e = engine();
    const t = target(internal.url);
    await assert.rejects(e.chat(t, CHAT), refused('loopback'));
    await assert.rejects(e.chatStream(t, CHAT), refused('loopback'));
    await assert.rejects(e.embeddings(t, { model: 'm', input: 'x' }), refused('loopback'));
    await assert.rejects(e.listModels(t), refused('loopback'));
    for (const [base, cls] of [
      [`http://[::1]:${internal.port}/v1`, 'loopback'],
      [`http://[::ffff:127.0.0.1]:${internal.port}/v1`, 'loopback'],
      [`http://0.0.0.0:${internal.port}/v1`, 'unspecified'],
      [`http://2130706433:${internal.port}/v1`, 'loopback'], // 127.0.0.1 as one number
      [`http://0x7f.1:${internal.port}/v1`, 'loopback'],
      ['http://169.254.169.254/latest/meta-data', 'link-local'],
      ['http://10.1.2.3/v1', 'private'],
    ] as const) {
      await assert.rejects(e.chat(target(base), CHAT), refused(cls), base);
    }
    assert.equal(internal.hits(), 0);
  });

  it('checks after DNS: a name that resolves to a private address is refused, a mixed answer too', async () => {
    const e = engine({ resolve: dns({ 'rebind.test': ['127.0.0.1'], 'mixed.test': ['93.184.216.34', '127.0.0.1'], 'meta.test': ['169.254.169.254'] }) });
    await assert.rejects(e.chat(target(`http://rebind.test:${internal.port}/v1`), CHAT), refused('loopback'));
    await assert.rejects(e.chat(target(`http://mixed.test:${internal.port}/v1`), CHAT), refused('loopback'));
    await assert.rejects(e.chat(target('http://meta.test/latest'), CHAT), refused('link-local'));
    assert.equal(internal.hits(), 0);
  });

  it('the system resolver is the default: localhost is refused', async () => {
    await assert.rejects(engine().chat(target(`http://localhost:${internal.port}/v1`), CHAT), refused('loopback'));
    assert.equal(internal.hits(), 0);
  });

  it("the operator's local target (trusted) reaches loopback; an account on the same origin does not", async () => {
    const e = engine();
    const local = await e.chat(target(fake.url, { accountId: 'pa_local', provider: 'local', apiKey: undefined, trusted: true }), CHAT);
    assert.equal(local.completion.object, 'chat.completion');
    await assert.rejects(e.chat(target(fake.url), CHAT), refused('loopback'));
    assert.equal(fake.calls, 1);
  });

  it('SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: an IP, a CIDR or a name admits exactly what it names', async () => {
    const resolve = dns({ 'llm.lan': ['127.0.0.1'], 'other.lan': ['127.0.0.1'] });
    assert.equal((await engine({ allowedPrivateHosts: ['127.0.0.1'] }).chat(target(fake.url), CHAT)).completion.object, 'chat.completion');
    assert.equal((await engine({ allowedPrivateHosts: ['127.0.0.0/8'] }).chat(target(fake.url), CHAT)).completion.object, 'chat.completion');
    const byName = engine({ allowedPrivateHosts: ['llm.lan'], resolve });
    assert.equal((await byName.chat(target(`http://llm.lan:${port}/v1`), CHAT)).completion.object, 'chat.completion');
    // The name entry admits that name only: not the literal address, not another name.
    await assert.rejects(byName.chat(target(fake.url), CHAT), refused('loopback'));
    await assert.rejects(byName.chat(target(`http://other.lan:${port}/v1`), CHAT), refused('loopback'));
    // A CIDR elsewhere admits nothing here.
    await assert.rejects(engine({ allowedPrivateHosts: ['10.0.0.0/8'] }).chat(target(fake.url), CHAT), refused('loopback'));
    assert.equal(fake.calls, 3);
  });

  it('a redirect is never followed (a public upstream cannot bounce the call inward), and its body is not echoed', async () => {
    let hits = 0;
    const bouncer = createServer((_req, res) => {
      hits++;
      res.writeHead(302, { location: `${internal.url}/chat/completions`, 'content-type': 'text/html' }).end(`<a>${SECRET}</a>`);
    });
    await new Promise<void>((r) => bouncer.listen(0, '127.0.0.1', r));
    try {
      const bport = (bouncer.address() as AddressInfo).port;
      const e = engine({ allowedPrivateHosts: ['bouncer.test'], resolve: dns({ 'bouncer.test': ['127.0.0.1'] }) });
      await assert.rejects(e.chat(target(`http://bouncer.test:${bport}/v1`), CHAT), (err: unknown) => {
        assert.ok(err instanceof UpstreamError);
        assert.equal(err.status, 502);
        assert.ok(!JSON.stringify(err.body).includes(SECRET), err.message);
        return true;
      });
      assert.equal(hits, 1);
      assert.equal(internal.hits(), 0);
    } finally {
      await new Promise<void>((r) => bouncer.close(() => r()));
    }
  });

  it("an allowed upstream's non-JSON error body is not echoed (only its status)", async () => {
    const e = engine({ allowedPrivateHosts: ['127.0.0.1'] });
    await assert.rejects(e.chat(target(internal.url), CHAT), (err: unknown) => {
      assert.ok(err instanceof UpstreamError);
      assert.equal(err.status, 502);
      assert.match(err.message, /HTTP 500/);
      assert.ok(!JSON.stringify(err.body).includes(SECRET), err.message);
      assert.ok(!err.message.includes('aws_secret_access_key'));
      return true;
    });
    assert.equal(internal.hits(), 1);
  });
});
