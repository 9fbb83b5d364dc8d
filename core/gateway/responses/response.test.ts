import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import type { ChatCompletion } from '../../wire/openai.ts';
import { parseResponsesRequest } from './request.ts';
import { toResponsesEnvelope } from './response.ts';

const completion = (message: ChatCompletion['choices'][0]['message'], finish: ChatCompletion['choices'][0]['finish_reason'], usage?: ChatCompletion['usage']): ChatCompletion => ({
  id: 'c', object: 'chat.completion', created: 1, model: 'up', choices: [{ index: 0, message, finish_reason: finish }], ...(usage ? { usage } : {}),
});

describe('toResponsesEnvelope', () => {
  it('builds the Responses object with the echo fields the SDK marks required', () => {
    const { meta } = parseResponsesRequest({ model: 'm', input: 'x', user: 'u1', parallel_tool_calls: false, reasoning: { effort: 'low' }, text: { format: { type: 'json_object' } } });
    const r = toResponsesEnvelope(
      completion({ role: 'assistant', content: '{"a":1}' }, 'stop', { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, prompt_tokens_details: { cached_tokens: 2 }, completion_tokens_details: { reasoning_tokens: 1 } }),
      meta,
      { identity: { id: 'resp_x', createdAt: 100 }, now: () => 200_000 },
    );
    assert.equal(r.id, 'resp_x');
    assert.equal(r.object, 'response');
    assert.equal(r.created_at, 100);
    assert.equal(r.completed_at, 200);
    assert.equal(r.status, 'completed');
    assert.equal(r.parallel_tool_calls, false);
    assert.equal(r.store, false);
    assert.equal(r.error, null);
    assert.equal(r.incomplete_details, null);
    assert.deepEqual(r.metadata, {});
    assert.equal(r.user, 'u1');
    assert.deepEqual(r.reasoning, { effort: 'low', summary: null });
    assert.deepEqual(r.text, { format: { type: 'json_object' } });
    assert.equal(r.tool_choice, 'auto');
    assert.deepEqual(r.tools, []);
    assert.equal(r.temperature, null);
    assert.equal(r.top_p, null);
    assert.equal('output_text' in r, false);
    assert.deepEqual(r.usage, { input_tokens: 5, input_tokens_details: { cached_tokens: 2 }, output_tokens: 3, output_tokens_details: { reasoning_tokens: 1 }, total_tokens: 8 });
    const [msg] = r.output as { id: string; type: string; status: string; role: string; content: unknown[] }[];
    assert.match(msg?.id ?? '', /^msg_/);
    assert.deepEqual({ ...msg, id: 'x' }, { id: 'x', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: '{"a":1}', annotations: [], logprobs: [] }] });
  });

  it('tool calls become function_call items; no empty message item when content is null', () => {
    const { meta } = parseResponsesRequest({ model: 'm', input: 'x' });
    const r = toResponsesEnvelope(completion({ role: 'assistant', content: null, tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }] }, 'tool_calls'), meta);
    const out = r.output as Record<string, unknown>[];
    assert.equal(out.length, 1);
    assert.match(String(out[0]?.id), /^fc_/);
    assert.deepEqual({ ...out[0], id: 'x' }, { id: 'x', type: 'function_call', status: 'completed', call_id: 'call_9', name: 'f', arguments: '{"x":1}' });
    assert.equal(r.parallel_tool_calls, true, 'absent → true');
  });

  it('content_filter → incomplete with reason content_filter; missing usage reports zeros', () => {
    const { meta } = parseResponsesRequest({ model: 'm', input: 'x' });
    const r = toResponsesEnvelope(completion({ role: 'assistant', content: 'par' }, 'content_filter'), meta);
    assert.equal(r.status, 'incomplete');
    assert.deepEqual(r.incomplete_details, { reason: 'content_filter' });
    assert.equal(r.completed_at, null);
    assert.equal((r.usage as { total_tokens: number }).total_tokens, 0);
  });
});
