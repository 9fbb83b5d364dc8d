import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UpstreamError } from '../providers/types.ts';
import { Tracked } from './tracked.ts';
import { PARTIAL_USAGE, type ChatChunk, type UsageSplits } from './types.ts';

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
  const calls: { status: number; u: UsageSplits }[] = [];
  return { calls, done: (status: number, u: UsageSplits) => void calls.push({ status, u }) };
}

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
