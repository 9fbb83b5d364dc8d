// /api/app/provider-accounts over HTTP: admins and owners write, everyone in the workspace reads;
// API keys go in sealed and never come out; bad input is a clear 4xx; the model catalogue follows
// the accounts; the local target (LOCAL_LLM_BASE_URL) is pa_local / local/<model> everywhere.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { fakeOpenAi, type FakeUpstream } from '../../helpers/fake-upstream.ts';
import { json, type Person } from '../people.ts';
import { startGateway, type Gateway } from './harness.ts';

interface Account {
  id: string;
  provider: string;
  slug: string;
  name: string;
  baseUrl: string | null;
  keyPreview: string | null;
  models: string[] | null;
  enabled: boolean;
}

const SECRET = 'sk-live-SECRETVALUE-0123456789abcdefXYZ9';

describe('provider accounts over HTTP', () => {
  let g: Gateway;
  beforeAll(async () => {
    g = await startGateway();
  });
  afterAll(() => g.close());

  const as = (p: Person, path: string, init: RequestInit = {}, workspace = g.people.workspace) =>
    fetch(g.base + path, { ...init, headers: { ...(init.headers as Record<string, string>), ...p.headers({ workspace }) } });
  const modelIds = async (key = g.memberKey) => {
    const r = await fetch(`${g.base}/api/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    return ((await r.json()) as { data: { id: string }[] }).data.map((m) => m.id);
  };
  const chat = (model: string, key = g.memberKey) =>
    fetch(`${g.base}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });

  test('create, list, read, patch, delete; the API key never appears in any response', async () => {
    const texts: string[] = [];
    const keep = async (r: Response) => {
      const t = await r.text();
      texts.push(t);
      return t ? (JSON.parse(t) as Account & { data: Account[] }) : undefined;
    };
    const created = await as(g.people.admin, '/api/app/provider-accounts', json('POST', { provider: 'openai', name: 'OpenAI prod', slug: 'oai', apiKey: SECRET }));
    assert.equal(created.status, 201);
    const a = (await keep(created))!;
    assert.match(a.id, /^pa_/);
    assert.equal(a.provider, 'openai');
    assert.equal(a.keyPreview, '…XYZ9');
    assert.equal(a.enabled, true);

    const list = (await keep(await as(g.people.viewer, '/api/app/provider-accounts')))!;
    assert.ok(list.data.some((x) => x.id === a.id));
    const one = await as(g.people.member, `/api/app/provider-accounts/${a.id}`);
    assert.equal(one.status, 200);
    await keep(one);

    const patched = await as(g.people.owner, `/api/app/provider-accounts/${a.id}`, json('PATCH', { name: 'Renamed', apiKey: `${SECRET}-rotated-WXYZ` }));
    assert.equal(patched.status, 200);
    const p = (await keep(patched))!;
    assert.equal(p.name, 'Renamed');
    assert.equal(p.keyPreview, '…WXYZ');

    for (const t of texts) {
      assert.ok(!t.includes(SECRET), 'the key is never returned');
      assert.ok(!t.includes('SECRETVALUE'), 'no part of it beyond the last four');
      assert.ok(!/apiKey|api_key/.test(t), 'no key field at all');
    }

    const del = await as(g.people.admin, `/api/app/provider-accounts/${a.id}`, { method: 'DELETE' });
    assert.equal(del.status, 204);
    assert.equal((await as(g.people.admin, `/api/app/provider-accounts/${a.id}`)).status, 404);
    assert.equal((await as(g.people.admin, `/api/app/provider-accounts/${a.id}`, { method: 'DELETE' })).status, 404);
    const after = (await (await as(g.people.admin, '/api/app/provider-accounts')).json()) as { data: Account[] };
    assert.ok(!after.data.some((x) => x.id === a.id));
  });

  test('the key is stored sealed: the row holds neither the key nor its base64', async () => {
    const r = await as(g.people.owner, '/api/app/provider-accounts', json('POST', { provider: 'groq', name: 'Groq', apiKey: SECRET }));
    assert.equal(r.status, 201);
    const { id } = (await r.json()) as Account;
    const row = await g.core.db.one<{ api_key_enc: string; key_last4: string }>('SELECT api_key_enc, key_last4 FROM provider_accounts WHERE id = ?', [id]);
    assert.ok(row?.api_key_enc && row.api_key_enc.length > SECRET.length / 2);
    for (const needle of [SECRET, 'SECRETVALUE', Buffer.from(SECRET).toString('base64').slice(0, 24), Buffer.from(SECRET).toString('hex').slice(0, 24)]) {
      assert.ok(!row.api_key_enc.includes(needle), `api_key_enc contains ${needle}`);
    }
    assert.equal(row.key_last4, 'XYZ9');
    await as(g.people.owner, `/api/app/provider-accounts/${id}`, { method: 'DELETE' });
  });

  test('only admins and owners write; members and viewers read; an outsider does neither', async () => {
    const { id } = (await (await as(g.people.owner, '/api/app/provider-accounts', json('POST', { provider: 'mistral', name: 'M', apiKey: 'k-1234' }))).json()) as Account;
    for (const p of [g.people.member, g.people.viewer]) {
      assert.equal((await as(p, '/api/app/provider-accounts', json('POST', { provider: 'mistral', name: 'X', slug: 'x', apiKey: 'k' }))).status, 403);
      assert.equal((await as(p, `/api/app/provider-accounts/${id}`, json('PATCH', { name: 'Y' }))).status, 403);
      assert.equal((await as(p, `/api/app/provider-accounts/${id}`, { method: 'DELETE' })).status, 403);
      assert.equal((await as(p, '/api/app/provider-accounts')).status, 200);
    }
    assert.equal((await as(g.people.outsider, '/api/app/provider-accounts')).status, 403);
    // The outsider's own workspace does not see this workspace's accounts.
    const own = (await (await as(g.people.outsider, '/api/app/provider-accounts', {}, g.people.outsider.ownWorkspace)).json()) as { data: Account[] };
    assert.ok(!own.data.some((a) => a.id === id));
    assert.equal((await as(g.people.outsider, `/api/app/provider-accounts/${id}`, {}, g.people.outsider.ownWorkspace)).status, 404);
    assert.equal((await as(g.people.owner, `/api/app/provider-accounts/${id}`, { method: 'DELETE' })).status, 204);
  });

  test('bad input: unknown provider, missing baseUrl or key, bad baseUrl, slug clash (409), unknown field', async () => {
    const post = (body: unknown) => as(g.people.admin, '/api/app/provider-accounts', json('POST', body));
    const cases: Array<[unknown, number, string]> = [
      [{ provider: 'openia', name: 'typo', apiKey: 'k' }, 400, 'invalid_provider'],
      [{ provider: 'local', name: 'no', baseUrl: 'http://127.0.0.1:1/v1' }, 400, 'invalid_provider'],
      [{ provider: 'openai-compatible', name: 'no url' }, 400, 'base_url_required'],
      [{ provider: 'openai', name: 'no key' }, 400, 'api_key_required'],
      [{ provider: 'openai-compatible', name: 'ftp', baseUrl: 'ftp://x/v1' }, 400, 'invalid_base_url'],
      [{ provider: 'openai-compatible', name: 'creds', baseUrl: 'http://u:p@x/v1' }, 400, 'invalid_base_url'],
      [{ provider: 'openai-compatible', name: 'bad slug', slug: 'Has Spaces', baseUrl: 'http://x/v1' }, 400, 'invalid_slug'],
      [{ provider: 'openai-compatible', name: 'reserved', slug: 'service', baseUrl: 'http://x/v1' }, 400, 'invalid_slug'],
      [{ provider: 'openai-compatible', name: 'clash', slug: 'fake', baseUrl: 'http://x/v1' }, 409, 'slug_taken'],
      [{ provider: 'openai-compatible', name: 'extra', baseUrl: 'http://x/v1', role: 'owner' }, 400, ''],
    ];
    for (const [body, status, code] of cases) {
      const r = await post(body);
      const b = (await r.json()) as { error: { code: string; field?: string } };
      assert.equal(r.status, status, JSON.stringify(body));
      if (code) assert.equal(b.error.code, code, JSON.stringify(body));
    }
  });

  test('without a slug, it is derived from the name and made unique in the workspace', async () => {
    const post = async (name: string) => {
      const r = await as(g.people.admin, '/api/app/provider-accounts', json('POST', { provider: 'openai-compatible', name, baseUrl: g.openai.url, models: ['gpt-test'] }));
      assert.equal(r.status, 201, await r.clone().text());
      return (await r.json()) as Account & { slug: string };
    };
    const a = await post('Home Ollama');
    const b = await post('Home Ollama');
    const c = await post('LM Stüdio!');
    assert.deepEqual([a.slug, b.slug, c.slug], ['home-ollama', 'home-ollama-2', 'lm-studio']);
    assert.ok((await modelIds()).includes('home-ollama-2/gpt-test'));
    for (const x of [a, b, c]) await as(g.people.admin, `/api/app/provider-accounts/${x.id}`, { method: 'DELETE' });
  });

  test('disabling an account removes its models from /api/v1/models at once; enabling brings them back; deleting ends them', async () => {
    const r = await as(g.people.owner, '/api/app/provider-accounts', json('POST', { provider: 'openai-compatible', name: 'Second', slug: 'second', baseUrl: g.openai.url, models: ['gpt-test'] }));
    const { id } = (await r.json()) as Account;
    assert.ok((await modelIds()).includes('second/gpt-test'));
    assert.equal((await chat('second/gpt-test')).status, 200);

    assert.equal((await as(g.people.admin, `/api/app/provider-accounts/${id}`, json('PATCH', { enabled: false }))).status, 200);
    assert.ok(!(await modelIds()).includes('second/gpt-test'), 'catalogue invalidated on disable');
    assert.equal((await chat('second/gpt-test')).status, 404);
    assert.ok((await modelIds()).includes('fake/gpt-test'), 'other accounts unaffected');

    await as(g.people.admin, `/api/app/provider-accounts/${id}`, json('PATCH', { enabled: true, models: ['gpt-test', 'gpt-other'] }));
    const ids = await modelIds();
    assert.ok(ids.includes('second/gpt-test') && ids.includes('second/gpt-other'), 'allowlist change seen at once');

    await as(g.people.admin, `/api/app/provider-accounts/${id}`, { method: 'DELETE' });
    assert.ok(!(await modelIds()).some((m) => m.startsWith('second/')));
    const gone = await chat('second/gpt-test');
    assert.equal(gone.status, 404);
    assert.equal(((await gone.json()) as { error: { code: string } }).error.code, 'model_not_found');
  });
});

describe('the local target (LOCAL_LLM_BASE_URL)', () => {
  let local: FakeUpstream;
  let g: Gateway;
  beforeAll(async () => {
    local = await fakeOpenAi();
    local.script({ models: ['llama3.2', 'qwen-local'] });
    g = await startGateway({ env: { LOCAL_LLM_BASE_URL: local.url } });
  });
  afterAll(async () => {
    await g.close();
    await local.close();
  });

  test('appears as pa_local in every workspace, lists local/<model> from its own /models, and is callable', async () => {
    const as = (p: Person, path: string, init: RequestInit, ws: string) => fetch(g.base + path, { ...init, headers: { ...(init.headers as Record<string, string>), ...p.headers({ workspace: ws }) } });
    for (const [p, ws] of [[g.people.viewer, g.people.workspace], [g.people.outsider, g.people.outsider.ownWorkspace]] as const) {
      const list = (await (await as(p, '/api/app/provider-accounts', {}, ws)).json()) as { data: Account[] };
      const l = list.data.find((a) => a.id === 'pa_local');
      assert.ok(l, `pa_local in ${ws}`);
      assert.equal(l.provider, 'local');
      assert.equal(l.slug, 'local');
    }
    // The outsider's own workspace has only the local target: its models are theirs too.
    const kr = await as(g.people.outsider, '/api/app/keys', json('POST', { name: 'own' }), g.people.outsider.ownWorkspace);
    const outsiderKey = ((await kr.json()) as { token: string }).token;
    for (const key of [g.memberKey, outsiderKey]) {
      const r = await fetch(`${g.base}/api/v1/models`, { headers: { authorization: `Bearer ${key}` } });
      const ids = ((await r.json()) as { data: { id: string }[] }).data.map((m) => m.id);
      assert.ok(ids.includes('local/llama3.2') && ids.includes('local/qwen-local'), ids.join());
    }
    const before = local.calls;
    const res = await fetch(`${g.base}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${outsiderKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local/llama3.2', messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content, 'Hello from the fake.');
    const call = local.requests.slice(before).find((r) => r.path.endsWith('/chat/completions'));
    assert.equal(call?.body.model, 'llama3.2');
    // Configured by the environment, not through the API.
    assert.equal((await as(g.people.owner, '/api/app/provider-accounts/pa_local', json('PATCH', { name: 'x' }), g.people.workspace)).status, 409);
    assert.equal((await as(g.people.owner, '/api/app/provider-accounts/pa_local', { method: 'DELETE' }, g.people.workspace)).status, 409);
  });
});
