import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { errorBody } from './errors.ts';
import { withSafeRetry } from './retry.ts';
import { UpstreamError } from './types.ts';

const up = (noWork: boolean, retryAfterMs?: number) =>
  new UpstreamError(noWork ? 429 : 502, errorBody('x', 'server_error', null), retryAfterMs === undefined ? { noWork } : { noWork, retryAfterMs });

describe('withSafeRetry', () => {
  it('retries noWork failures up to the attempt limit', async () => {
    const seen: number[] = [];
    const r = await withSafeRetry(async (n) => {
      seen.push(n);
      if (n < 3) throw up(true);
      return 'ok';
    }, { attempts: 3, baseDelayMs: 1 });
    assert.equal(r, 'ok');
    assert.deepEqual(seen, [1, 2, 3]);
    let calls = 0;
    await assert.rejects(withSafeRetry(async () => { calls++; throw up(true); }, { attempts: 2, baseDelayMs: 1 }), UpstreamError);
    assert.equal(calls, 2);
  });

  it('never retries a failure that may have done work, nor a non-upstream error', async () => {
    for (const e of [up(false), new Error('bug')]) {
      let calls = 0;
      await assert.rejects(withSafeRetry(async () => { calls++; throw e; }, { attempts: 5, baseDelayMs: 1 }));
      assert.equal(calls, 1);
    }
  });

  it('honours Retry-After up to 2 s and gives up on a longer one', async () => {
    const delays: number[] = [];
    let calls = 0;
    await withSafeRetry(async () => { if (++calls === 1) throw up(true, 30); return 1; }, { baseDelayMs: 1, onRetry: (_e, _n, d) => delays.push(d) });
    assert.ok(delays[0]! >= 30);
    calls = 0;
    await assert.rejects(withSafeRetry(async () => { calls++; throw up(true, 5000); }, { attempts: 3 }));
    assert.equal(calls, 1);
  });
});
