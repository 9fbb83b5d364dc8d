import assert from 'node:assert/strict';
import { it } from 'vitest';
import { isProviderId, PROVIDERS, resolveBaseUrl } from './registry.ts';
import { PROVIDER_IDS } from './types.ts';

it('lists every provider once, as data, with the documented defaults', () => {
  assert.deepEqual(Object.keys(PROVIDERS).sort(), [...PROVIDER_IDS].sort());
  for (const id of PROVIDER_IDS) assert.equal(PROVIDERS[id].id, id);
  assert.equal(PROVIDERS.gemini.defaultBaseUrl, 'https://generativelanguage.googleapis.com/v1beta/openai');
  assert.equal(PROVIDERS.anthropic.protocol, 'anthropic');
  assert.deepEqual(PROVIDER_IDS.filter((id) => PROVIDERS[id].embeddings).sort(), ['gemini', 'local', 'mistral', 'openai', 'openai-compatible', 'together']);
  assert.deepEqual(PROVIDER_IDS.filter((id) => !PROVIDERS[id].keyRequired).sort(), ['local', 'openai-compatible']);
  assert.deepEqual(PROVIDER_IDS.filter((id) => !PROVIDERS[id].defaultBaseUrl).sort(), ['local', 'openai-compatible']);
  for (const id of PROVIDER_IDS) { const u = PROVIDERS[id].defaultBaseUrl; if (u) assert.match(u, /^https:\/\/[^ ]+[^/]$/); }
});

it('resolves base URLs: the account\'s own (trimmed) or the default; required for generic targets', () => {
  assert.equal(resolveBaseUrl('openai'), 'https://api.openai.com/v1');
  assert.equal(resolveBaseUrl('openai', 'http://proxy:8080/v1/ '), 'http://proxy:8080/v1');
  assert.equal(resolveBaseUrl('local', 'http://127.0.0.1:11434/v1/'), 'http://127.0.0.1:11434/v1');
  assert.throws(() => resolveBaseUrl('openai-compatible', ''), /needs a base URL/);
  assert.equal(isProviderId('groq'), true);
  assert.equal(isProviderId('service'), false);
});
