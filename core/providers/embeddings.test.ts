import assert from 'node:assert/strict';
import { it } from 'vitest';
import { decodeFloat32, encodeFloat32, toBase64Embeddings } from './embeddings.ts';

it('encodes float vectors as OpenAI base64 (float32 LE) and leaves base64 alone', () => {
  const v = [0.5, -1.25, 3];
  assert.equal(encodeFloat32(v), Buffer.from(new Float32Array(v).buffer).toString('base64'));
  assert.deepEqual(decodeFloat32(encodeFloat32(v)), v);
  const r = toBase64Embeddings({ object: 'list', model: 'm', usage: { prompt_tokens: 1, total_tokens: 1 }, data: [{ object: 'embedding', index: 0, embedding: v }] });
  assert.equal(r.data[0]!.embedding, encodeFloat32(v));
  assert.equal(toBase64Embeddings(r), r);
});
