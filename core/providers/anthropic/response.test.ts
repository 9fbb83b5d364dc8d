import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { splitsOf } from '../../wire/openai.ts';
import { finishReason, toChatCompletion, toChatUsage } from './response.ts';

describe('Anthropic response → chat completion', () => {
  it('joins text, maps tool_use to tool_calls, keeps thinking out of content', () => {
    const c = toChatCompletion({
      id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', stop_reason: 'tool_use',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 's' },
        { type: 'text', text: 'Let me ' },
        { type: 'text', text: 'check.' },
        { type: 'tool_use', id: 'tu1', name: 'get_weather', input: { city: 'Paris' } },
      ],
      usage: { input_tokens: 5, output_tokens: 100, cache_read_input_tokens: 20, cache_creation_input_tokens: 7 },
    }, 123);
    assert.equal(c.created, 123);
    assert.equal(c.id, 'msg_1');
    const m = c.choices[0]!.message;
    assert.equal(m.content, 'Let me check.');
    assert.deepEqual(m.tool_calls, [{ id: 'tu1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
    assert.equal(m.reasoning_content, 'hmm');
    assert.equal(c.choices[0]!.finish_reason, 'tool_calls');
    assert.deepEqual(splitsOf(c.usage), { inputTokens: 32, cachedTokens: 20, outputTokens: 100, reasoningTokens: 100 - Math.ceil(('Let me check.'.length + 16 + 'get_weather'.length) / 4), totalTokens: 132 });
  });

  it('content is null with no text block; no thinking means zero reasoning tokens', () => {
    const c = toChatCompletion({ id: 'm', type: 'message', role: 'assistant', model: 'x', stop_reason: 'max_tokens', content: [], usage: { input_tokens: 1, output_tokens: 2 } });
    assert.equal(c.choices[0]!.message.content, null);
    assert.equal(c.choices[0]!.finish_reason, 'length');
    assert.equal(c.usage!.completion_tokens_details!.reasoning_tokens, 0);
  });

  it('maps stop reasons', () => {
    assert.equal(finishReason('end_turn'), 'stop');
    assert.equal(finishReason('stop_sequence'), 'stop');
    assert.equal(finishReason('max_tokens'), 'length');
    assert.equal(finishReason('tool_use'), 'tool_calls');
    assert.equal(finishReason('refusal'), 'content_filter');
  });

  it('usage: prompt = input + cache read + cache write; cached = cache read; reasoning clamped', () => {
    const u = toChatUsage({ input_tokens: 10, cache_read_input_tokens: 30, cache_creation_input_tokens: 5, output_tokens: 4 }, 400);
    assert.equal(u.prompt_tokens, 45);
    assert.equal(u.total_tokens, 49);
    assert.equal(u.prompt_tokens_details!.cached_tokens, 30);
    assert.equal(u.completion_tokens_details!.reasoning_tokens, 0);
    assert.equal(toChatUsage({ output_tokens: 50 }, 0).completion_tokens_details!.reasoning_tokens, 50);
  });
});
