// A provider whose server does not answer is not silently dropped: /api/v1/models names the
// accounts whose models are missing, and a chat with the local target's model names the variable.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, test } from 'vitest';
import OpenAI from 'openai';
import { refusingUrl } from '../../helpers/fake-upstream.ts';
import { json } from '../people.ts';
import { startGateway, type Gateway } from './harness.ts';

let g: Gateway;
beforeAll(async () => {
  g = await startGateway({ env: { LOCAL_LLM_BASE_URL: await refusingUrl() } });
  const r = await g.app('/api/app/provider-accounts', json('POST', { provider: 'openai-compatible', name: 'Down', slug: 'down', baseUrl: await refusingUrl() }));
  assert.equal(r.status, 201);
});
afterAll(() => g.close());

test('GET /api/v1/models says which accounts could not list their models', async () => {
  const res = await fetch(`${g.base}/api/v1/models`, { headers: { authorization: `Bearer ${g.memberKey}` } });
  assert.equal(res.status, 200);
  assert.deepEqual(res.headers.get('x-svc-unavailable-providers')?.split(',').sort(), ['down', 'local']);
  const ids = ((await res.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
  assert.ok(ids.includes('fake/gpt-test'), 'the answering accounts are still listed');
});

test('a chat with a model of an unreachable local target names LOCAL_LLM_BASE_URL and the fix', async () => {
  try {
    await g.sdk().chat.completions.create({ model: 'local/llama3.2', messages: [{ role: 'user', content: 'hi' }] });
    assert.fail('expected an error');
  } catch (e) {
    assert.ok(e instanceof OpenAI.APIError);
    assert.equal(e.status, 502);
    assert.match(e.message, /the local model target \(LOCAL_LLM_BASE_URL\)/);
    assert.match(e.message, /svc doctor/);
  }
});
