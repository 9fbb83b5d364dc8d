import type { ChatRequest, EmbeddingsRequest } from '../../wire/openai.ts';
import type { ProviderQuirks } from '../registry.ts';

/** Only quirks apply; streams always ask for usage. Unchanged requests are not copied. */
export function toOpenAiRequest(q: ProviderQuirks, req: ChatRequest, stream: boolean): Record<string, unknown> {
  let out: Record<string, unknown> = req;
  const edit = () => (out === req ? (out = { ...req }) : out);

  if (stream) {
    if (req.stream !== true) edit().stream = true;
    if (q.streamOptions) {
      if (req.stream_options?.include_usage !== true) edit().stream_options = { ...req.stream_options, include_usage: true };
    } else if (req.stream_options !== undefined) delete edit().stream_options;
  } else {
    if (req.stream) edit().stream = false;
    if (req.stream_options !== undefined) delete edit().stream_options;
  }
  if (!q.reasoningEffort && req.reasoning_effort !== undefined) delete edit().reasoning_effort;

  const other = q.maxTokensField === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens';
  // The caller's own copy of the known field wins.
  if (q.maxTokensField === 'max_tokens' && req[other] != null) {
    const o = edit();
    if (o[q.maxTokensField] == null) o[q.maxTokensField] = req[other];
    delete o[other];
  }
  if (q.rename) {
    for (const [from, to] of Object.entries(q.rename)) {
      if (req[from] !== undefined) {
        const o = edit();
        o[to] = o[from];
        delete o[from];
      }
    }
  }
  if (q.drop) for (const k of q.drop) if (out[k] !== undefined) delete edit()[k];
  return out;
}

/** Floats from upstreams without base64; the engine encodes. */
export function toEmbeddingsRequest(q: ProviderQuirks, req: EmbeddingsRequest): EmbeddingsRequest {
  if (req.encoding_format === 'base64' && !q.base64Embeddings) return { ...req, encoding_format: 'float' };
  return req;
}

/** Keyless targets send no Authorization. */
export function openAiHeaders(apiKey: string | undefined, stream: boolean): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' };
  if (apiKey) h.authorization = `Bearer ${apiKey}`;
  return h;
}
