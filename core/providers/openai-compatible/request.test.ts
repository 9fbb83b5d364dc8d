import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import type { ChatRequest } from '../../wire/openai.ts';
import { PROVIDERS } from '../registry.ts';
import { openAiHeaders, toEmbeddingsRequest, toOpenAiRequest } from './request.ts';

const base: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }], temperature: 0.3, seed: 7, user: 'u1', reasoning_effort: 'low', max_completion_tokens: 50, response_format: { type: 'json_object' } };

describe('OpenAI-compatible request transform', () => {
  it('sends an OpenAI request unchanged (the same object: no copy) when not streaming', () => {
    assert.equal(toOpenAiRequest(PROVIDERS.openai.quirks, base, false), base);
  });

  it('streams with stream_options.include_usage, keeping the caller\'s other stream options, without touching the input', () => {
    const req: ChatRequest = { ...base, stream: true, stream_options: { include_usage: false } };
    const out = toOpenAiRequest(PROVIDERS.openai.quirks, req, true);
    assert.deepEqual(out.stream_options, { include_usage: true });
    assert.equal(out.stream, true);
    assert.deepEqual(req.stream_options, { include_usage: false });
    assert.equal(toOpenAiRequest(PROVIDERS.openai.quirks, { ...base, stream: true }, false).stream, false);
  });

  it('renames max_completion_tokens to max_tokens where the upstream only knows that', () => {
    for (const p of ['deepseek', 'gemini', 'openrouter', 'together'] as const) {
      const out = toOpenAiRequest(PROVIDERS[p].quirks, base, false);
      assert.equal(out.max_tokens, 50, p);
      assert.equal('max_completion_tokens' in out, false, p);
    }
    // A caller-sent max_tokens wins.
    assert.equal(toOpenAiRequest(PROVIDERS.deepseek.quirks, { ...base, max_tokens: 9 }, false).max_tokens, 9);
    assert.equal(toOpenAiRequest(PROVIDERS.groq.quirks, base, false).max_completion_tokens, 50);
  });

  it('drops reasoning_effort where unsupported and applies Mistral\'s strict schema', () => {
    assert.equal('reasoning_effort' in toOpenAiRequest(PROVIDERS.deepseek.quirks, base, false), false);
    const m = toOpenAiRequest(PROVIDERS.mistral.quirks, { ...base, stream_options: { include_usage: true } }, true);
    assert.equal(m.random_seed, 7);
    for (const k of ['seed', 'user', 'stream_options', 'reasoning_effort', 'max_completion_tokens']) assert.equal(k in m, false, k);
    assert.equal(m.max_tokens, 50);
    assert.deepEqual(m.response_format, { type: 'json_object' });
  });

  it('asks float embeddings from upstreams without base64, and sets bearer auth only with a key', () => {
    const e = { model: 'e', input: 'x', encoding_format: 'base64' as const };
    assert.equal(toEmbeddingsRequest(PROVIDERS.openai.quirks, e), e);
    assert.equal(toEmbeddingsRequest(PROVIDERS.mistral.quirks, e).encoding_format, 'float');
    assert.equal(openAiHeaders('sk-1', false).authorization, 'Bearer sk-1');
    assert.equal('authorization' in openAiHeaders(undefined, true), false);
    assert.equal(openAiHeaders(undefined, true).accept, 'text/event-stream');
  });
});
