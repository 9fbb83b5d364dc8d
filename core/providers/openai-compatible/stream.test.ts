import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { RAW_JSON, type ChatChunk } from '../../wire/openai.ts';
import { UpstreamError } from '../types.ts';
import { openAiChunks } from './stream.ts';

const c = (o: Record<string, unknown>) => `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', ...o })}\n\n`;
const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };

async function* slices(s: string, size: number) {
  for (let i = 0; i < s.length; i += size) yield s.slice(i, i + size);
}
async function collect(it: AsyncIterable<ChatChunk>) {
  const out: ChatChunk[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('OpenAI SSE → chunks', () => {
  const text = ': ping\n\n' + c({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }) +
    c({ choices: [{ index: 0, delta: { content: 'Hé' }, finish_reason: null }] }) +
    c({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) + c({ choices: [], usage }) + 'data: [DONE]\n\n';

  it('yields the same chunks for any slicing, the usage chunk last', async () => {
    for (const size of [1, 3, 7, 64, text.length]) {
      const got = await collect(openAiChunks('openai', slices(text, size)));
      assert.equal(got.length, 4, `size ${size}`);
      assert.equal(got[1]!.choices[0]!.delta.content, 'Hé');
      assert.deepEqual(got[3]!.choices, []);
      assert.deepEqual(got[3]!.usage, usage);
    }
  });

  it('moves usage riding on the last content chunk into a trailing usage chunk', async () => {
    const t = c({ choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] }) +
      c({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage }) + 'data: [DONE]\n\n';
    const got = await collect(openAiChunks('mistral', slices(t, 5)));
    assert.equal(got.length, 3);
    assert.equal(got[1]!.usage, undefined);
    assert.deepEqual(got[2], { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage });
  });

  it('throws on an in-stream error, a non-JSON event, and a stream cut before it finished', async () => {
    const start = c({ choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] });
    for (const t of [start + 'data: {"error":{"message":"upstream died"}}\n\n', start + 'data: {oops\n\n', start]) {
      await assert.rejects(collect(openAiChunks('openrouter', slices(t, 4))), (e: unknown) => e instanceof UpstreamError && e.status === 502 && !e.noWork);
    }
  });

  it('accepts a finished stream without [DONE]', async () => {
    const t = c({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    assert.equal((await collect(openAiChunks('local', slices(t, 9)))).length, 1);
  });

  it('an unchanged chunk keeps its upstream text ; a changed or multi-line one does not', async () => {
    const own = '{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}],"x_upstream":1.0}';
    const multi = 'data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m",\ndata: "choices":[{"index":0,"delta":{"content":"b"},"finish_reason":null}]}\n\n';
    const t = `data: ${own}\n\n` + multi + c({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage }) + 'data: [DONE]\n\n';
    const got = await collect(openAiChunks('openai', slices(t, 11)));
    assert.equal(got.length, 4);
    assert.equal(got[0]![RAW_JSON], own);
    assert.equal(got[1]![RAW_JSON], undefined, 'a data field over two lines must be re-serialised onto one');
    assert.equal(got[2]![RAW_JSON], undefined, 'usage split off: the text no longer matches the chunk');
    assert.equal(got[2]!.usage, undefined);
    assert.equal(got[3]![RAW_JSON], undefined);
  });

  /** Text in the given reads; records whether the consumer of the chunks closed it (return()). */
  function reads(parts: string[]) {
    const log = { returned: 0, pulled: 0 };
    const it: AsyncIterableIterator<string> = {
      [Symbol.asyncIterator]: () => it,
      next: async () => (log.pulled < parts.length ? { value: parts[log.pulled++]!, done: false } : { value: undefined, done: true }),
      return: async () => ((log.returned++), { value: undefined, done: true }),
    };
    return { it, log };
  }

  it('hands out the chunks before a bad event of the same read, then throws and closes the text', async () => {
    const good = c({ choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] });
    const { it: text, log } = reads([good + good + 'data: {oops\n\n' + good, good]);
    const got: ChatChunk[] = [];
    await assert.rejects(async () => {
      for await (const x of openAiChunks('openai', text)) got.push(x);
    }, (e: unknown) => e instanceof UpstreamError && e.status === 502);
    assert.equal(got.length, 2);
    assert.equal(log.pulled, 1, 'nothing is read past the failure');
    assert.equal(log.returned, 1, 'the upstream text is closed');
  });

  it('a consumer leaving early closes the text; a stream read to its end does not need to', async () => {
    const { it: text, log } = reads([text1(), 'data: [DONE]\n\n']);
    for await (const _ of openAiChunks('openai', text)) break;
    assert.equal(log.returned, 1);
    const whole = reads([text1(), 'data: [DONE]\n\n']);
    assert.equal((await collect(openAiChunks('openai', whole.it))).length, 2);
    assert.equal(whole.log.returned, 0);
    assert.equal(whole.log.pulled, 2, 'read to the end: what follows [DONE] is drained');
  });

  it('maps a failure of the text itself through mapError', async () => {
    const failing: AsyncIterable<string> = { [Symbol.asyncIterator]: () => ({ next: async () => Promise.reject(new Error('socket reset')) }) };
    await assert.rejects(collect(openAiChunks('openai', failing, (e) => new Error(`mapped: ${(e as Error).message}`))), /mapped: socket reset/);
  });
});

function text1() {
  return c({ choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] }) + c({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
}
