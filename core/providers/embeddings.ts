import type { EmbeddingsResponse } from '../wire/openai.ts';

/** float32 little-endian base64, the OpenAI SDK's default, for upstreams that send floats only. */
export function toBase64Embeddings(r: EmbeddingsResponse): EmbeddingsResponse {
  if (r.data.every((d) => typeof d.embedding === 'string')) return r;
  return { ...r, data: r.data.map((d) => (Array.isArray(d.embedding) ? { ...d, embedding: encodeFloat32(d.embedding) } : d)) };
}

export function encodeFloat32(v: number[]): string {
  const buf = Buffer.allocUnsafe(v.length * 4);
  for (let i = 0; i < v.length; i++) buf.writeFloatLE(v[i]!, i * 4);
  return buf.toString('base64');
}

export function decodeFloat32(b64: string): number[] {
  const buf = Buffer.from(b64, 'base64');
  const out: number[] = new Array(buf.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = buf.readFloatLE(i * 4);
  return out;
}
