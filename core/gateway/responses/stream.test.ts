import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import type { ChatChunk } from '../../wire/openai.ts';
import { parseResponsesRequest } from './request.ts';
import { formatSse } from './sse.ts';
import { responsesEventStream } from './stream.ts';
import type { ResponsesEvent } from './types.ts';

const meta = parseResponsesRequest({ model: 'm', input: 'x', stream: true }).meta;
const chunk = (delta: ChatChunk['choices'][0]['delta'], finish: ChatChunk['choices'][0]['finish_reason'] = null): ChatChunk => ({
  id: 'c', object: 'chat.completion.chunk', created: 1, model: 'up-model', choices: [{ index: 0, delta, finish_reason: finish }],
});
async function* from(chunks: ChatChunk[]) {
  yield* chunks;
}
async function collect(chunks: ChatChunk[]): Promise<ResponsesEvent[]> {
  const out: ResponsesEvent[] = [];
  for await (const e of responsesEventStream(from(chunks), meta, { identity: { id: 'resp_fixed', createdAt: 1700000000 }, now: () => 1700000005000 })) out.push(e);
  return out;
}

describe('responsesEventStream', () => {
  it('emits the full sequence with sequence numbers from 0 and the routing fields', async () => {
    const events = await collect([
      chunk({ role: 'assistant', content: 'Hi' }),
      chunk({ content: ' there' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
      { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'up-model', choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } },
    ]);
    assert.deepEqual(events.map((e) => e.event), [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      // the message closes when the tool call starts
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    events.forEach((e, i) => {
      assert.equal(e.data.sequence_number, i);
      assert.equal(e.data.type, e.event);
    });
    const msgId = (events[2]?.data.item as { id: string }).id;
    assert.match(msgId, /^msg_/);
    for (const e of events.slice(3, 8)) assert.deepEqual([e.data.item_id, e.data.output_index, e.data.content_index], [msgId, 0, 0]);
    const fc = events[9]?.data.item as { id: string; call_id: string };
    assert.equal(events[9]?.data.output_index, 1);
    assert.equal(fc.call_id, 'call_1');
    assert.equal(events[10]?.data.item_id, fc.id);
    const done = events.at(-1)?.data.response as Record<string, unknown>;
    assert.equal(done.id, 'resp_fixed');
    assert.equal((events[0]?.data.response as Record<string, unknown>).id, 'resp_fixed', 'one identity across lifecycle events');
    assert.equal(done.status, 'completed');
    assert.equal(done.completed_at, 1700000005);
    assert.equal(done.model, 'up-model');
    assert.equal('output_text' in done, false, 'output_text is SDK-computed, not sent');
    assert.deepEqual(done.usage, { input_tokens: 3, input_tokens_details: { cached_tokens: 0 }, output_tokens: 4, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 7 });
    assert.deepEqual((done.output as { type: string }[]).map((o) => o.type), ['message', 'function_call']);
  });

  it('an empty upstream still yields a well-formed completed response', async () => {
    const events = await collect([chunk({}, 'stop')]);
    assert.deepEqual(events.map((e) => e.event), ['response.created', 'response.in_progress', 'response.completed']);
    assert.deepEqual((events[2]?.data.response as { output: unknown[] }).output, []);
  });

  it('stopping early closes the upstream (client disconnect aborts the call)', async () => {
    let closed = false;
    async function* up() {
      try {
        yield chunk({ content: 'a' });
        yield chunk({ content: 'b' });
      } finally {
        closed = true;
      }
    }
    for await (const e of responsesEventStream(up(), meta)) if (e.event === 'response.output_text.delta') break;
    assert.equal(closed, true);
  });

  it('formatSse frames one event as event + data lines and a blank line', () => {
    assert.equal(formatSse({ event: 'response.created', data: { type: 'response.created', sequence_number: 0 } }), 'event: response.created\ndata: {"type":"response.created","sequence_number":0}\n\n');
  });
});
