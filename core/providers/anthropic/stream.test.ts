import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import type { ChatChunk } from '../../wire/openai.ts';
import { UpstreamError } from '../types.ts';
import { anthropicChunks } from './stream.ts';

const ev = (type: string, o: Record<string, unknown> = {}) => `event: ${type}\ndata: ${JSON.stringify({ type, ...o })}\n\n`;
const STREAM = [
  ev('message_start', { message: { id: 'msg_1', model: 'claude-x', usage: { input_tokens: 10, cache_read_input_tokens: 4, cache_creation_input_tokens: 2, output_tokens: 1 } } }),
  ev('ping'),
  ev('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }),
  ev('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'ponder' } }),
  ev('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 's' } }),
  ev('content_block_stop', { index: 0 }),
  ev('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
  ev('content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'Hi ' } }),
  ev('content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'there' } }),
  ev('content_block_stop', { index: 1 }),
  ev('content_block_start', { index: 2, content_block: { type: 'tool_use', id: 'tu1', name: 'f', input: {} } }),
  ev('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '{"a":' } }),
  ev('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '1}' } }),
  ev('content_block_stop', { index: 2 }),
  ev('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 40 } }),
  ev('message_stop'),
].join('');

async function* slices(s: string, size: number) {
  for (let i = 0; i < s.length; i += size) yield s.slice(i, i + size);
}
async function collect(it: AsyncIterable<ChatChunk>) {
  const out: ChatChunk[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('Anthropic stream events → chunks', () => {
  it('maps the full event sequence, ending with a usage chunk', async () => {
    for (const size of [1, 17, STREAM.length]) {
      const got = await collect(anthropicChunks('anthropic', slices(STREAM, size), 5));
      const deltas = got.map((c) => c.choices[0]?.delta);
      assert.deepEqual(deltas.slice(0, 7), [
        { role: 'assistant', content: '' },
        { reasoning_content: 'ponder' },
        { content: 'Hi ' },
        { content: 'there' },
        { tool_calls: [{ index: 0, id: 'tu1', type: 'function', function: { name: 'f', arguments: '' } }] },
        { tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] },
        { tool_calls: [{ index: 0, function: { arguments: '1}' } }] },
      ]);
      assert.equal(got[7]!.choices[0]!.finish_reason, 'tool_calls');
      const last = got[8]!;
      assert.deepEqual(last.choices, []);
      assert.equal(last.id, 'msg_1');
      assert.equal(last.model, 'claude-x');
      assert.equal(last.created, 5);
      assert.equal(last.usage!.prompt_tokens, 16);
      assert.equal(last.usage!.prompt_tokens_details!.cached_tokens, 4);
      assert.equal(last.usage!.completion_tokens, 40);
      assert.equal(got.length, 9);
    }
  });

  it('throws on an error event and on a stream that ends before message_stop', async () => {
    const start = STREAM.slice(0, STREAM.indexOf('event: content_block_start'));
    for (const t of [start + ev('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }), start]) {
      await assert.rejects(collect(anthropicChunks('anthropic', slices(t, 50))), (e: unknown) => e instanceof UpstreamError && e.status === 502 && !e.noWork);
    }
  });
});
