import assert from 'node:assert/strict';
import { test } from 'vitest';
import { isAppError } from '../../kernel/errors.ts';
import type { ChatRequest } from '../../wire/openai.ts';
import { matches } from './families.ts';
import { CONDUIT_MODEL, isConduit, route, routeError } from './route.ts';

const req = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: CONDUIT_MODEL,
  messages: [{ role: 'user', content }],
  ...extra,
});
const image: ChatRequest = {
  model: CONDUIT_MODEL,
  messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }] }],
};
const WORKSPACE = [
  'openai/gpt-4.1-mini',
  'openai/text-embedding-3-small',
  'anthropic/claude-sonnet-4-5',
  'local/llama3.2',
  'groq/llama-3.3-70b-versatile',
  'deepseek/deepseek-reasoner',
  'mistral/codestral-latest',
  'gemini/gemini-2.5-pro',
];

test('patterns: whole-id, case-insensitive, * spans slashes', () => {
  assert.ok(matches('*claude-sonnet-4*', 'openrouter/anthropic/claude-sonnet-4.5'));
  assert.ok(matches('*GPT-4.1', 'openai/gpt-4.1'));
  assert.ok(!matches('*gpt-4.1', 'openai/gpt-4.1-mini'), 'no implicit trailing wildcard');
  assert.ok(matches('local/*', 'local/qwen2.5:7b'));
  assert.ok(!matches('openai/gpt-4.1', 'xopenai/gpt-4.1'));
  assert.ok(matches('a.b', 'a.b') && !matches('a.b', 'axb'), 'dots are literal');
});

test('each task lands on its family and default preference in a mixed workspace', () => {
  const cases: [ChatRequest, string, string, string][] = [
    [req('Fix this: ```js\nconst a = b.map(x => x)\n```'), 'code', 'code', 'anthropic/claude-sonnet-4-5'],
    [req('Prove that sqrt(3) is irrational.'), 'reasoning', 'reasoning', 'gemini/gemini-2.5-pro'],
    [req('x '.repeat(60_000)), 'long_context', 'long_context', 'gemini/gemini-2.5-pro'],
    [image, 'vision', 'vision', 'gemini/gemini-2.5-pro'],
    [req('hi', { tools: [{ type: 'function', function: { name: 'f' } }] }), 'tool_use', 'tools', 'openai/gpt-4.1-mini'],
    [req('hello!'), 'short_chat', 'fast', 'openai/gpt-4.1-mini'],
  ];
  for (const [r, task, family, chosen] of cases) {
    const d = route(r, WORKSPACE);
    assert.ok(d.ok, task);
    assert.equal(d.task, task);
    assert.equal(d.family, family);
    assert.equal(d.chosen, chosen, `${task}: candidates ${d.candidates.join(', ')}`);
    assert.equal(d.candidates[0], d.chosen);
    assert.ok(d.reasons.some((x) => x.includes(`family ${family}`)));
  }
});

test('candidates: preferred order first, then every other chat model; no duplicates; non-chat excluded', () => {
  const d = route(req('Prove that sqrt(3) is irrational.'), WORKSPACE);
  assert.ok(d.ok);
  assert.deepEqual(d.candidates.slice(0, 3), ['gemini/gemini-2.5-pro', 'deepseek/deepseek-reasoner', 'anthropic/claude-sonnet-4-5']);
  assert.equal(new Set(d.candidates).size, d.candidates.length);
  assert.equal(d.candidates.length, WORKSPACE.length - 1);
  assert.ok(!d.candidates.includes('openai/text-embedding-3-small'));
  assert.ok(d.reasons.some((r) => /excluded 1 non-chat/.test(r)));
});

test('workspace overrides go before the defaults, as ids or patterns', () => {
  const d = route(req('```py\nprint(1)\n```\nwhy'), WORKSPACE, { families: { code: ['local/*', 'mistral/codestral-latest'] } });
  assert.ok(d.ok);
  assert.deepEqual(d.candidates.slice(0, 3), ['local/llama3.2', 'mistral/codestral-latest', 'anthropic/claude-sonnet-4-5']);
  assert.match(d.reasons.join('\n'), /workspace override pattern 'local\/\*'/);
  // An override naming a model the workspace does not expose falls through to the defaults.
  const miss = route(req('```py\nprint(1)\n```\nwhy'), WORKSPACE, { families: { code: ['openai/o3'] } });
  assert.ok(miss.ok);
  assert.equal(miss.chosen, 'anthropic/claude-sonnet-4-5');
});

test('fallback chain: no family match → first exposed chat model, said so in the reasons', () => {
  const d = route(req('Prove that sqrt(3) is irrational.'), ['acme/house-model-1', 'acme/house-model-2']);
  assert.ok(d.ok);
  assert.equal(d.chosen, 'acme/house-model-1');
  assert.deepEqual(d.candidates, ['acme/house-model-1', 'acme/house-model-2']);
  assert.match(d.reasons.join('\n'), /falling back/);
});

test('vision: text-only models excluded, unknown ones after known vision models', () => {
  const d = route(image, ['deepseek/deepseek-chat', 'mistral/codestral-latest', 'acme/mystery', 'openai/gpt-4o-mini']);
  assert.ok(d.ok);
  assert.deepEqual(d.candidates, ['openai/gpt-4o-mini', 'acme/mystery']);
  const unknown = route(image, ['acme/mystery', 'deepseek/deepseek-chat']);
  assert.ok(unknown.ok);
  assert.equal(unknown.chosen, 'acme/mystery');
  assert.match(unknown.reasons.join('\n'), /unverified/);
  // A workspace override vouches for a model the defaults call text-only.
  const vouched = route(image, ['local/llama3.2'], { families: { vision: ['local/llama3.2'] } });
  assert.ok(vouched.ok);
  assert.equal(vouched.chosen, 'local/llama3.2');
});

test('no exposed chat model → 404 model_not_found; images with only text-only models → 400', () => {
  for (const exposed of [[], ['openai/text-embedding-3-large', 'local/nomic-embed-text', 'openai/whisper-1', CONDUIT_MODEL]]) {
    const d = route(req('hi'), exposed);
    assert.equal(d.ok, false);
    assert.equal(d.chosen, null);
    assert.deepEqual(d.candidates, []);
    if (!d.ok) {
      assert.equal(d.error.status, 404);
      assert.equal(d.error.code, 'model_not_found');
      const e = routeError(d);
      assert.ok(isAppError(e));
      assert.equal(e.status, 404);
      assert.equal(e.field, 'model');
    }
  }
  const d = route(image, ['deepseek/deepseek-chat', 'groq/llama-3.3-70b-versatile']);
  assert.equal(d.ok, false);
  if (!d.ok) assert.deepEqual([d.error.status, d.error.code], [400, 'model_not_capable']);
});

test('isConduit recognises the router model id only', () => {
  assert.ok(isConduit('service/conduit'));
  assert.ok(isConduit('Service/Conduit'));
  assert.ok(!isConduit('openai/gpt-4.1'));
});

test('memoised plans: keyed by the model list and overrides objects; callers cannot corrupt them', () => {
  const exposed = ['openai/gpt-4.1-mini', 'local/llama3.2'];
  const a = route(req('hello'), exposed);
  assert.ok(a.ok);
  a.candidates.reverse();
  a.reasons.push('mutated');
  const b = route(req('hello'), exposed);
  assert.ok(b.ok);
  assert.deepEqual(b.candidates, ['openai/gpt-4.1-mini', 'local/llama3.2']);
  assert.ok(!b.reasons.includes('mutated'));
  const c = route(req('hello'), exposed, { families: { fast: ['local/*'] } });
  assert.ok(c.ok);
  assert.equal(c.chosen, 'local/llama3.2');
  const d = route(req('hello'), [...exposed].reverse());
  assert.ok(d.ok);
  assert.equal(d.chosen, 'openai/gpt-4.1-mini');
});
