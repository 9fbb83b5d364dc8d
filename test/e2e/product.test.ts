// The product through the built binary, as a user meets it: `svc serve` alone on SQLite (embedded
// queue workers), sign-up, a provider account on an in-repo fake, the gateway through the official
// openai SDK, an agent run in the request with an http_request tool, and a queued run. Bundling
// problems (a module loaded lazily, a CommonJS package imported dynamically) only show here.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import OpenAI from 'openai';
import { fakeOpenAi } from '../helpers/fake-upstream.ts';
import { cleanEnv, ensureBuilt, freePort, isolatedBinary, start, stop, waitForStatus, type Running, type Sandbox } from '../helpers/binary.ts';

type Fake = Awaited<ReturnType<typeof fakeOpenAi>>;

describe('svc serve end to end (built binary, SQLite)', () => {
  let sb: Sandbox;
  let run: Running;
  let fake: Fake;
  let target: Server;
  let base: string;
  let session: Record<string, string>;
  let targetHits = 0;

  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = session) => {
    const r = await fetch(`${base}${path}`, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : undefined, text };
  };

  beforeAll(async () => {
    ensureBuilt();
    sb = isolatedBinary();
    fake = await fakeOpenAi();
    target = createServer((_req, res) => {
      targetHits++;
      res.setHeader('content-type', 'text/plain');
      res.end('the weather is sunny');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // The tool reaches a server on loopback: allowed explicitly, as an operator would.
    run = start(sb, ['serve'], cleanEnv(sb.home, { PORT: String(port), SERVICE_TOOL_HTTP_ALLOW_PRIVATE: 'true', SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' }));
    await waitForStatus(run, `${base}/api/health/ready`);
    const reg = await fetch(`${base}/api/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@example.com', password: 'correct horse battery' }) });
    assert.equal(reg.status, 201);
    const jar = Object.fromEntries(reg.headers.getSetCookie().map((c) => c.split(';', 1)[0]!.split('=') as [string, string]));
    session = { cookie: `service_session=${jar.service_session}; service_csrf=${jar.service_csrf}`, 'x-csrf-token': jar.service_csrf! };
  });

  afterAll(async () => {
    if (run) assert.equal(await stop(run), 0, run.output());
    await fake?.close();
    target?.close();
    sb?.cleanup();
  });

  test('the gateway serves the openai SDK: models, chat, a stream with usage', async () => {
    const pa = await api('POST', '/api/app/provider-accounts', { provider: 'openai-compatible', name: 'Fake', slug: 'fake', baseUrl: fake.url, models: ['gpt-test'] });
    assert.equal(pa.status, 201, pa.text);
    const key = await api('POST', '/api/app/keys', { name: 'e2e' });
    assert.equal(key.status, 201, key.text);
    const sdk = new OpenAI({ baseURL: `${base}/api/v1`, apiKey: key.body.token, maxRetries: 0 });
    assert.ok((await sdk.models.list()).data.some((m) => m.id === 'fake/gpt-test'));
    fake.script({ text: 'hello from upstream', usage: { input: 7, output: 3 } });
    const chat = await sdk.chat.completions.create({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(chat.choices[0]!.message.content, 'hello from upstream');
    const stream = await sdk.chat.completions.create({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let total = 0;
    for await (const c of stream) {
      text += c.choices[0]?.delta.content ?? '';
      if (c.usage) total = c.usage.total_tokens;
    }
    assert.equal(text, 'hello from upstream');
    assert.equal(total, 10);
  });

  test('an agent run in the request calls a tool; a queued run completes on the embedded workers', async () => {
    const accounts = await api('GET', '/api/app/provider-accounts');
    const fakeId = accounts.body.data.find((a: { slug: string }) => a.slug === 'fake').id;
    const agent = await api('POST', '/api/app/agents', { name: 'A', instructions: 'help', providerAccountId: fakeId, model: 'fake/gpt-test', tools: [{ type: 'http_request' }] });
    assert.equal(agent.status, 201, agent.text);
    assert.equal((await api('POST', `/api/app/agents/${agent.body.id}/publish`, {})).status, 201);
    const token = (await api('POST', '/api/app/access-tokens', { name: 'e2e' })).body.token as string;
    const bearer = { authorization: `Bearer ${token}` };
    const url = `http://127.0.0.1:${(target.address() as { port: number }).port}/weather`;
    fake.reset();
    fake.once({ toolCalls: [{ name: 'http_request', arguments: JSON.stringify({ method: 'GET', url }) }] });
    fake.script({ text: 'It is sunny.' });
    const r = await api('POST', `/api/agents/${agent.body.id}/runs`, { inputText: 'weather?' }, bearer);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.status, 'completed', r.text);
    assert.equal(r.body.outputText, 'It is sunny.');
    assert.equal(targetHits, 1, 'the tool made its request');
    const read = await api('GET', `/api/agents/${agent.body.id}/runs/${r.body.runId}`, undefined, bearer);
    assert.match(read.body.steps[1].output, /sunny/);

    const q = await api('POST', `/api/agents/${agent.body.id}/runs`, { inputText: 'later', async: true }, bearer);
    assert.equal(q.status, 202, q.text);
    const deadline = Date.now() + 15_000;
    let status = q.body.status;
    while (status !== 'completed' && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 50));
      status = (await api('GET', `/api/agents/${agent.body.id}/runs/${q.body.runId}`, undefined, bearer)).body.run.status;
    }
    assert.equal(status, 'completed', run.output().slice(-2000));
  });
});
