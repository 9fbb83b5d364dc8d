import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import type { ChatRequest } from '../../wire/openai.ts';
import { UpstreamError } from '../types.ts';
import { anthropicHeaders, toAnthropicRequest } from './request.ts';

const req = (o: Partial<ChatRequest>): ChatRequest => ({ model: 'claude-x', messages: [{ role: 'user', content: 'hi' }], ...o });

describe('chat → Anthropic Messages request', () => {
  it('moves system and developer messages to `system` and requires max_tokens (default 4096)', () => {
    const out = toAnthropicRequest(req({ messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'developer', content: [{ type: 'text', text: 'Use French.' }] },
      { role: 'user', content: 'hi' },
    ] }), false);
    assert.equal(out.system, 'Be brief.\n\nUse French.');
    assert.deepEqual(out.messages, [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
    assert.equal(out.max_tokens, 4096);
    assert.equal('stream' in out, false);
    assert.equal(toAnthropicRequest(req({ max_completion_tokens: 100, max_tokens: 5 }), true).max_tokens, 100);
    assert.equal(toAnthropicRequest(req({}), true).stream, true);
  });

  it('maps tools, assistant tool calls and tool results (consecutive results merged into one user turn)', () => {
    const out = toAnthropicRequest(req({
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: 'Checking.', tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'c2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ] },
        { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
        { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: 'rain' }] },
        { role: 'user', content: 'thanks' },
      ],
    }), false);
    assert.deepEqual(out.tools, [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }]);
    assert.deepEqual(out.tool_choice, { type: 'tool', name: 'get_weather' });
    assert.deepEqual(out.messages, [
      { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
      { role: 'assistant', content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'c1', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'c2', name: 'get_weather', input: { city: 'Rome' } },
      ] },
      { role: 'user', content: [
        { type: 'tool_result', tool_use_id: 'c1', content: 'sunny' },
        { type: 'tool_result', tool_use_id: 'c2', content: [{ type: 'text', text: 'rain' }] },
        { type: 'text', text: 'thanks' },
      ] },
    ]);
  });

  it('maps tool_choice and parallel_tool_calls', () => {
    const tools: ChatRequest['tools'] = [{ type: 'function', function: { name: 'f' } }];
    assert.deepEqual(toAnthropicRequest(req({ tools, tool_choice: 'required' }), false).tool_choice, { type: 'any' });
    assert.deepEqual(toAnthropicRequest(req({ tools, tool_choice: 'none' }), false).tool_choice, { type: 'none' });
    assert.deepEqual(toAnthropicRequest(req({ tools, parallel_tool_calls: false }), false).tool_choice, { type: 'auto', disable_parallel_tool_use: true });
    assert.deepEqual((toAnthropicRequest(req({ tools }), false).tools as unknown[])[0], { name: 'f', input_schema: { type: 'object', properties: {} } });
  });

  it('turns data: URL images into base64 blocks and http URLs into url blocks', () => {
    const out = toAnthropicRequest(req({ messages: [{ role: 'user', content: [
      { type: 'text', text: 'what is this' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
    ] }] }), false);
    assert.deepEqual((out.messages as { content: unknown[] }[])[0]!.content.slice(1), [
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
    assert.throws(() => toAnthropicRequest(req({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'file:///x' } }] }] }), false),
      (e: unknown) => e instanceof UpstreamError && e.status === 400);
  });

  it('maps stop, user, temperature (clamped to 1), and drops seed', () => {
    const out = toAnthropicRequest(req({ stop: 'END', user: 'u-1', temperature: 1.7, top_p: 0.9, seed: 3 }), false);
    assert.deepEqual(out.stop_sequences, ['END']);
    assert.deepEqual(out.metadata, { user_id: 'u-1' });
    assert.equal(out.temperature, 1);
    assert.equal(out.top_p, 0.9);
    assert.equal('seed' in out, false);
  });

  it('maps reasoning_effort to a thinking budget below max_tokens, without temperature', () => {
    const a = toAnthropicRequest(req({ reasoning_effort: 'medium', temperature: 0.2 }), false);
    assert.deepEqual(a.thinking, { type: 'enabled', budget_tokens: 8192 });
    assert.equal(a.max_tokens, 8192 + 4096);
    assert.equal('temperature' in a, false);
    const b = toAnthropicRequest(req({ reasoning_effort: 'high', max_completion_tokens: 3000 }), false);
    assert.deepEqual(b.thinking, { type: 'enabled', budget_tokens: 2999 });
    assert.equal(b.max_tokens, 3000);
    const c = toAnthropicRequest(req({ reasoning_effort: 'low', max_tokens: 500 }), false);
    assert.equal('thinking' in c, false);
  });

  it('carries response_format as a JSON-only instruction in system', () => {
    const out = toAnthropicRequest(req({ response_format: { type: 'json_schema', json_schema: { name: 'pt', schema: { type: 'object' } } } }), false);
    assert.match(String(out.system), /single JSON object.*"pt".*\{"type":"object"\}/);
  });

  it('refuses tool-call arguments that are not JSON', () => {
    assert.throws(() => toAnthropicRequest(req({ messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{bad' } }] }] }), false),
      (e: unknown) => e instanceof UpstreamError && e.body.error.param === 'messages[0].tool_calls');
  });

  it('authenticates with x-api-key and anthropic-version', () => {
    const h = anthropicHeaders('sk-ant', true);
    assert.equal(h['x-api-key'], 'sk-ant');
    assert.equal(h['anthropic-version'], '2023-06-01');
    assert.equal('authorization' in h, false);
  });
});
