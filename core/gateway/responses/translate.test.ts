import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { parseResponsesRequest } from './request.ts';

describe('Responses → chat translation (ANCHORS "Responses → chat")', () => {
  it('instructions become a system message and a string input a user message', () => {
    const { chat, meta } = parseResponsesRequest({ model: 'm', instructions: 'Be brief.', input: 'Hello' });
    assert.deepEqual(chat, {
      model: 'm',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ],
    });
    assert.equal(meta.parallel_tool_calls, true, 'absent parallel_tool_calls means true');
    assert.equal(meta.instructions, 'Be brief.');
  });

  it('translates an item list: roles, parts, images, merged function calls, tool outputs', () => {
    const { chat } = parseResponsesRequest({
      model: 'm',
      input: [
        { role: 'developer', content: 'dev rules' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is in ' }, { type: 'input_image', image_url: 'https://x/y.png', detail: 'low' }] },
        // A previous response's output fed back: message + two calls (one assistant turn).
        { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_a', name: 'lookup', arguments: '{"q":1}', status: 'completed' },
        { type: 'function_call', call_id: 'call_b', name: 'lookup', arguments: '{"q":2}' },
        { type: 'function_call_output', call_id: 'call_a', output: 'one' },
        { type: 'function_call_output', call_id: 'call_b', output: [{ type: 'input_text', text: 'two' }] },
        { type: 'function_call', call_id: 'call_c', name: 'again', arguments: '{}' },
      ],
    });
    assert.deepEqual(chat.messages, [
      { role: 'developer', content: 'dev rules' },
      { role: 'user', content: [{ type: 'text', text: 'What is in ' }, { type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'low' } }] },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } },
          { id: 'call_b', type: 'function', function: { name: 'lookup', arguments: '{"q":2}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'one' },
      { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: 'two' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_c', type: 'function', function: { name: 'again', arguments: '{}' } }] },
    ]);
  });

  it('refuses input items and parts that need state or have no chat form, naming them', () => {
    const bad = (input: unknown, field: string, code = 'invalid_request') =>
      assert.throws(() => parseResponsesRequest({ model: 'm', input }), { status: 400, code, field });
    bad([{ type: 'item_reference', id: 'msg_1' }], 'input[0].type', 'unsupported_input_item');
    bad([{ type: 'reasoning', id: 'rs_1', summary: [] }], 'input[0].type', 'unsupported_input_item');
    bad([{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }], 'input[0].content[0].type');
    bad([{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1', detail: 'auto' }] }], 'input[0].content[0].file_id');
    bad([{ role: 'system', content: [{ type: 'input_image', image_url: 'https://x', detail: 'auto' }] }], 'input[0].content[0].type');
    bad([{ role: 'tool', content: 'x' }], 'input[0].role');
    bad([], 'input');
  });

  it('flat function tools become nested chat tools; tool_choice maps both forms', () => {
    const tool = { type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: {} }, strict: true };
    const { chat, meta } = parseResponsesRequest({ model: 'm', input: 'x', tools: [tool], tool_choice: { type: 'function', name: 'get_weather' }, parallel_tool_calls: false });
    assert.deepEqual(chat.tools, [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: {} }, strict: true } }]);
    assert.deepEqual(chat.tool_choice, { type: 'function', function: { name: 'get_weather' } });
    assert.equal(chat.parallel_tool_calls, false);
    assert.deepEqual(meta.tools, [tool]);
    assert.deepEqual(meta.tool_choice, { type: 'function', name: 'get_weather' });
    for (const mode of ['none', 'auto', 'required']) {
      assert.equal(parseResponsesRequest({ model: 'm', input: 'x', tools: [tool], tool_choice: mode }).chat.tool_choice, mode);
    }
    assert.throws(() => parseResponsesRequest({ model: 'm', input: 'x', tools: [tool], tool_choice: { type: 'function', name: 'nope' } }), { field: 'tool_choice' });
    assert.throws(() => parseResponsesRequest({ model: 'm', input: 'x', tool_choice: { type: 'web_search' } }), { field: 'tool_choice' });
  });

  it('text.format: text sends nothing, json_object and json_schema are carried', () => {
    assert.equal(parseResponsesRequest({ model: 'm', input: 'x', text: { format: { type: 'text' } } }).chat.response_format, undefined);
    assert.deepEqual(parseResponsesRequest({ model: 'm', input: 'x', text: { format: { type: 'json_object' } } }).chat.response_format, { type: 'json_object' });
    const fmt = { type: 'json_schema', name: 'person', schema: { type: 'object' }, description: 'A person', strict: true };
    const { chat, meta } = parseResponsesRequest({ model: 'm', input: 'x', text: { format: fmt } });
    assert.deepEqual(chat.response_format, { type: 'json_schema', json_schema: { name: 'person', schema: { type: 'object' }, description: 'A person', strict: true } });
    assert.deepEqual(meta.text, { format: fmt });
  });

  it('forwards the scalar fields with chat equivalents', () => {
    const { chat } = parseResponsesRequest({
      model: 'm', input: 'x', stream: true, temperature: 0.5, top_p: 0.9, seed: 3, user: 'u1', max_output_tokens: 100,
      reasoning: { effort: 'high' }, service_tier: 'flex', prompt_cache_key: 'k', prompt_cache_retention: '24h', safety_identifier: 's',
      store: false, include: [], truncation: 'disabled', stream_options: { include_obfuscation: false },
    });
    assert.deepEqual(chat, {
      model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true, temperature: 0.5, top_p: 0.9, seed: 3, user: 'u1',
      max_completion_tokens: 100, reasoning_effort: 'high', service_tier: 'flex', prompt_cache_key: 'k', prompt_cache_retention: '24h', safety_identifier: 's',
    });
  });
});
