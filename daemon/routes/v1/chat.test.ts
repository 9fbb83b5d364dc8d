import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { RAW_JSON, type ChatChunk } from '../../../core/wire/openai.ts';
import { sseChunk } from './chat.ts';

const chunk = (): ChatChunk => ({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] });

describe('sseChunk', () => {
  it('writes the upstream text of an unchanged chunk as it came', () => {
    const c = chunk();
    c[RAW_JSON] = '{"id":"x","object":"chat.completion.chunk","created":1.0,"model":"m","choices":[]}';
    assert.equal(sseChunk(c), `data: ${c[RAW_JSON]}\n\n`);
  });

  it('serialises a chunk without one onto one line, symbols left out', () => {
    const c = chunk();
    const out = sseChunk(c);
    assert.equal(out, `data: ${JSON.stringify(chunk())}\n\n`);
    assert.equal(out.split('\n').length, 3);
  });
});
