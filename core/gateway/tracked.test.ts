import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { UpstreamError } from '../providers/types.ts';
import { streamUsage } from './estimate.ts';
import { Tracked, type StreamEnd } from './tracked.ts';
import { PARTIAL_USAGE, splitsOf, type ChatChunk, type ChatRequest, type UsageSplits } from '../wire/openai.ts';

const chunk = (o: Partial<ChatChunk> = {}): ChatChunk => ({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], ...o });
const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };

/** A source of chunks that fails with `failWith` after them (if given) and counts return() calls. */
function source(chunks: ChatChunk[], failWith?: Error) {
  const log = { returned: 0 };
  let i = 0;
  const it: AsyncIterableIterator<ChatChunk> = {
    [Symbol.asyncIterator]: () => it,
    async next() {
      if (i < chunks.length) return { value: chunks[i++]!, done: false };
      if (failWith) throw failWith;
      return { value: undefined, done: true };
    },
    return: async () => ((log.returned++), { value: undefined, done: true }),
  };
  return { it, log };
}

function recorder() {
  const calls: { status: number; u: UsageSplits; end: StreamEnd }[] = [];
  return { calls, done: (end: StreamEnd) => void calls.push({ status: end.status, u: splitsOf(end.usage ?? end.partial), end }) };
}
const text = (content: string, i = 0) => chunk({ choices: [{ index: i, delta: { content }, finish_reason: null }] });

describe('Tracked: a stream that reports its usage once, however it ends', () => {
  it('completed: 200 with the usage chunk’s counts, every chunk passed on', async () => {
    const r = recorder();
    const got: ChatChunk[] = [];
    for await (const c of new Tracked(source([chunk({ choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] }), chunk({ usage })]).it, r.done)) got.push(c);
    assert.equal(got.length, 2);
    assert.deepEqual(r.calls.map((c) => [c.status, c.u.inputTokens, c.u.outputTokens, c.u.totalTokens]), [[200, 3, 2, 5]]);
  });

  it('failed: the upstream error’s status (500 for anything else), the error passed on', async () => {
    for (const [err, status] of [[new UpstreamError(502, { error: { message: 'cut', type: 'x', param: null, code: null } }, { noWork: false }), 502], [new Error('bug'), 500]] as const) {
      const r = recorder();
      await assert.rejects(async () => {
        for await (const _ of new Tracked(source([chunk()], err).it, r.done));
      }, (e) => e === err);
      assert.deepEqual(r.calls.map((c) => c.status), [status]);
    }
  });

  it('left early: the source is returned and the partial usage (Anthropic’s input count) recorded once', async () => {
    const r = recorder();
    const first = chunk();
    first[PARTIAL_USAGE] = { prompt_tokens: 7, completion_tokens: 0, total_tokens: 7 };
    const s = source([first, chunk(), chunk()]);
    const t = new Tracked(s.it, r.done);
    for await (const _ of t) break;
    await t.return();
    assert.equal(s.log.returned, 1, 'a second return() does not return the source again');
    assert.deepEqual(r.calls.map((c) => [c.status, c.u.inputTokens]), [[200, 7]]);
  });

  it('returned before the first chunk was pulled: still recorded, so an abandoned call is never free', async () => {
    const r = recorder();
    const s = source([chunk()]);
    await new Tracked(s.it, r.done).return();
    assert.equal(s.log.returned, 1);
    assert.equal(r.calls.length, 1);
  });

  it('a source whose next() throws instead of rejecting still ends the stream with 500', async () => {
    const r = recorder();
    const bad: AsyncIterable<ChatChunk> = { [Symbol.asyncIterator]: () => ({ next: () => { throw new Error('sync'); } }) };
    await assert.rejects(new Tracked(bad, r.done).next(), /sync/);
    assert.deepEqual(r.calls.map((c) => c.status), [500]);
  });
});

describe('Tracked: what a cut stream delivered, and the usage chunk only when asked for', () => {
  it('counts the generated characters handed out: content, reasoning, refusal, tool calls', async () => {
    const r = recorder();
    const calls = chunk({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: 'fn', arguments: '{"a":1}' } }] }, finish_reason: null }] });
    const mixed = chunk({ choices: [{ index: 0, delta: { reasoning_content: 'think', refusal: 'no' }, finish_reason: null }, { index: 1, delta: { content: 'xy' }, finish_reason: null }] });
    const t = new Tracked(source([text('Hello'), calls, mixed, text('never read')]).it, r.done);
    for (let i = 0; i < 3; i++) await t.next();
    await t.return();
    assert.equal(r.calls[0]!.end.deliveredChars, 5 + 2 + 7 + 5 + 2 + 2);
    assert.equal(r.calls[0]!.end.usage, undefined);
  });

  it('a usage chunk (choices []) is skipped unless forwarded, but its usage is still recorded', async () => {
    for (const forward of [false, true]) {
      const r = recorder();
      const got: ChatChunk[] = [];
      for await (const c of new Tracked(source([text('a'), chunk({ usage })]).it, r.done, forward)) got.push(c);
      assert.equal(got.length, forward ? 2 : 1);
      assert.ok(got.every((c) => forward || c.choices.length > 0));
      assert.deepEqual(r.calls.map((c) => [c.status, c.u.totalTokens]), [[200, 5]]);
    }
    // Usage riding on a content chunk is not a usage chunk: it passes either way.
    const r = recorder();
    const got: ChatChunk[] = [];
    for await (const c of new Tracked(source([chunk({ choices: [{ index: 0, delta: { content: 'a' }, finish_reason: 'stop' }], usage })]).it, r.done, false)) got.push(c);
    assert.equal(got.length, 1);
  });

  it('streamUsage: the upstream’s usage when it came; otherwise an estimate from the prompt and the delivered text', () => {
    const req = { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(40) }, { role: 'user', content: [{ type: 'text', text: 'y'.repeat(8) }] }] } as ChatRequest;
    const end = (over: Partial<StreamEnd>): StreamEnd => ({ status: 200, usage: undefined, partial: undefined, deliveredChars: 0, error: undefined, ...over });
    assert.deepEqual(streamUsage(req, end({ usage, deliveredChars: 999 })), { splits: splitsOf(usage), estimated: false });
    const cut = streamUsage(req, end({ deliveredChars: 401 }));
    assert.equal(cut.estimated, true);
    assert.deepEqual([cut.splits.inputTokens, cut.splits.outputTokens, cut.splits.totalTokens], [12, 101, 113]);
    // Anthropic's input count, reported before the first token, is taken as it is.
    const partial = streamUsage(req, end({ partial: { prompt_tokens: 30, completion_tokens: 1, total_tokens: 31 }, deliveredChars: 8 }));
    assert.deepEqual([partial.splits.inputTokens, partial.splits.outputTokens, partial.estimated], [30, 2, true]);
  });
});
