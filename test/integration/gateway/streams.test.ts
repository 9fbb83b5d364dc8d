// Issue 12, items 14–17, through the real server with the official SDK on both stores:
// - a stream cut short (the client leaves, or the upstream dies) records what it delivered, marked
//   estimated, and counts it against the key's token quota — reading part of each stream is not free;
// - a stalled upstream is bounded by SERVICE_UPSTREAM_TIMEOUT_MS between chunks too, and the
//   stream ends with an OpenAI-shaped error event;
// - the `choices: []` usage chunk reaches only clients that sent stream_options.include_usage (the
//   upstream is always asked for usage);
// - every broken stream leaves one warn line with the request id and the cause.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import OpenAI from 'openai';
import { startGateway, type Gateway } from './harness.ts';

const PIECE = 'x'.repeat(39) + ' '; // 40 characters: 10 estimated tokens a chunk

interface UsageRow {
  status: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  estimated: number;
}

for (const store of ['sqlite', 'postgres'] as const) {
  describe(`gateway streams cut short, stalled, and their usage chunk (${store})`, () => {
    let g: Gateway;
    beforeAll(async () => {
      g = await startGateway({ store, env: { SERVICE_UPSTREAM_TIMEOUT_MS: '1000' } });
    });
    afterAll(() => g.close());
    beforeEach(() => g.openai.reset());

    const rows = async () => {
      await g.services.gateway.usage.flush();
      return g.core.db.all<UsageRow>('SELECT status, input_tokens, output_tokens, total_tokens, estimated FROM usage_events ORDER BY id');
    };
    const keyWith = async (limits: Record<string, number>) => {
      const r = await g.app('/api/app/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'cut', limits }) });
      assert.equal(r.status, 201, await r.clone().text());
      return ((await r.json()) as { token: string }).token;
    };
    const tokensThisMinute = async (key: string) => {
      const r = await fetch(`${g.base}/api/v1/quota`, { headers: { authorization: `Bearer ${key}` } });
      return ((await r.json()) as { consumed: { tokensThisMinute: number } }).consumed.tokensThisMinute;
    };
    const until = async (cond: () => Promise<boolean>, what: string) => {
      const end = Date.now() + 10_000;
      while (!(await cond())) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const warnings = () => g.fx.logs.filter((l) => l.msg === 'stream ended early');

    test('a key limited to 300 tokens/min that reads 20 chunks of each stream is refused once the delivered tokens pass it', async () => {
      const key = await keyWith({ tokensPerMinute: 300 });
      const sdk = g.sdk(key);
      // 600 chunks of 40 characters, 5 ms apart: a whole stream would be 6,000 tokens.
      g.openai.script({ chunks: new Array(600).fill(PIECE), text: 'x', usage: { input: 10, output: 6000 }, chunkDelayMs: 5 });
      const before = (await rows()).length;
      let admitted = 0;
      let refused: unknown;
      for (let i = 0; i < 6 && !refused; i++) {
        const seen = await tokensThisMinute(key);
        try {
          const stream = await sdk.chat.completions.create({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'count to a thousand' }], stream: true });
          admitted++;
          let n = 0;
          for await (const _ of stream) if (++n >= 20) break; // the SDK aborts the request
          await until(async () => (await tokensThisMinute(key)) > seen, 'the cut stream to be counted');
        } catch (err) {
          refused = err;
        }
      }
      assert.ok(refused instanceof OpenAI.RateLimitError, `refused with 429 (got ${String(refused)} after ${admitted} streams)`);
      assert.ok(admitted >= 2 && admitted <= 3, `${admitted} streams admitted`);
      const cut = (await rows()).slice(before);
      assert.equal(cut.length, admitted);
      for (const r of cut) {
        assert.equal(r.status, 499, 'the client closed the request');
        assert.equal(r.estimated, 1);
        assert.equal(r.input_tokens, 5, 'the prompt, 19 characters');
        // The client read the role chunk and 19 pieces; a few more may have been on their way to it.
        assert.ok(r.output_tokens >= 190 && r.output_tokens < 1000, `${r.output_tokens} output tokens: what was delivered, not the whole answer`);
      }
      assert.ok(warnings().some((w) => w.status === 499 && /client closed/.test(String(w.cause)) && /^req_/.test(String(w.requestId))));
    });

    test('the upstream dies mid-stream: the delivered text is recorded (estimated), the client gets an error event', async () => {
      g.openai.once({ chunks: new Array(50).fill(PIECE), text: 'x', fault: 'reset', afterChunks: 10 });
      const before = (await rows()).length;
      const n0 = warnings().length;
      const res = await fetch(`${g.base}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${g.memberKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true }),
      });
      const text = await res.text();
      assert.match(text, /data: \{"error":\{"message":"[^"]+","type":"server_error","param":null,"code":"upstream_connection_reset"\}\}\n\n$/);
      const [row] = (await rows()).slice(before);
      // The role chunk and 9 pieces of 40 characters came before the reset.
      assert.deepEqual({ status: row!.status, output: row!.output_tokens, estimated: row!.estimated }, { status: 502, output: 90, estimated: 1 });
      const w = warnings().slice(n0);
      assert.equal(w.length, 1, 'one warn line');
      assert.equal(w[0]!.requestId, res.headers.get('x-request-id'));
      assert.match(String(w[0]!.cause), /upstream_connection_reset/);
    });

    test('a stalled upstream: after SERVICE_UPSTREAM_TIMEOUT_MS without a chunk the stream ends with an error event', async () => {
      g.openai.once({ chunks: new Array(50).fill(PIECE), text: 'x', fault: 'stall', afterChunks: 3 });
      const before = (await rows()).length;
      const t0 = Date.now();
      const stream = await g.sdk().chat.completions.create({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true });
      const got: string[] = [];
      const outcome = await Promise.race([
        (async () => {
          try {
            for await (const c of stream) got.push(c.choices[0]?.delta.content ?? '');
            return 'ended without an error';
          } catch (err) {
            return err;
          }
        })(),
        new Promise((r) => setTimeout(() => r('still waiting after 10 s'), 10_000)),
      ]);
      assert.ok(outcome instanceof OpenAI.APIError, String(outcome));
      assert.match(outcome.message, /timed out/);
      assert.equal(got.join(''), PIECE + PIECE, 'the chunks before the stall arrived');
      assert.ok(Date.now() - t0 < 8000);
      const [row] = (await rows()).slice(before);
      assert.deepEqual({ status: row!.status, output: row!.output_tokens, estimated: row!.estimated }, { status: 504, output: 20, estimated: 1 });
      assert.ok(warnings().some((w) => w.status === 504 && /upstream_timeout/.test(String(w.cause))));
    });

    test('the usage chunk: only with stream_options.include_usage; every chunk has choices[0] otherwise; the upstream is always asked', async () => {
      g.openai.script({ text: 'one two three', usage: { input: 4, output: 3 } });
      const sdk = g.sdk();
      const collect = async (body: OpenAI.ChatCompletionCreateParamsStreaming) => {
        const out: OpenAI.ChatCompletionChunk[] = [];
        for await (const c of await sdk.chat.completions.create(body)) out.push(c);
        return out;
      };
      const base = { model: 'fake/gpt-test', messages: [{ role: 'user' as const, content: 'count' }], stream: true as const };
      for (const model of ['fake/gpt-test', 'claude/claude-test']) {
        const plain = await collect({ ...base, model });
        assert.ok(plain.length >= 3);
        for (const c of plain) assert.ok(c.choices[0], `${model}: every chunk has choices[0]: ${JSON.stringify(c)}`);
        assert.equal(plain.filter((c) => c.usage).length, 0, `${model}: no usage chunk`);
        const asked = await collect({ ...base, model, stream_options: { include_usage: true } });
        assert.deepEqual(asked.at(-1)!.choices, []);
        assert.ok(asked.at(-1)!.usage!.total_tokens > 0);
      }
      const upstream = g.openai.requests.map((r) => r.body.stream_options);
      assert.deepEqual(upstream, [{ include_usage: true }, { include_usage: true }]);
      // Both streams were counted with the upstream's usage, not an estimate.
      const recent = (await rows()).slice(-4);
      assert.deepEqual(recent.map((r) => [r.status, r.estimated]), [[200, 0], [200, 0], [200, 0], [200, 0]]);
    });
  });
}
