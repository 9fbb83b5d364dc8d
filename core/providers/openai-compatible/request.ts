import type { ChatRequest, EmbeddingsRequest } from '../../wire/openai.ts';
import type { ProviderQuirks } from '../registry.ts';

/**
 * Chat request → an OpenAI-compatible upstream. Everything the upstream accepts goes through
 * untouched; only the provider's quirks apply. Streaming always asks for usage (where the upstream
 * takes `stream_options`) so a stream never ends without its token counts. Returns the request
 * itself when nothing changes (the common case costs no copy).
 */
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
  // Only rename towards the field the upstream knows; a caller who sent the field it knows wins.
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

/** Embeddings: ask for floats from an upstream that cannot send base64 (the engine encodes). */
export function toEmbeddingsRequest(q: ProviderQuirks, req: EmbeddingsRequest): EmbeddingsRequest {
  if (req.encoding_format === 'base64' && !q.base64Embeddings) return { ...req, encoding_format: 'float' };
  return req;
}

/** Bearer auth plus JSON; keyless targets (local) send no Authorization header. */
export function openAiHeaders(apiKey: string | undefined, stream: boolean): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' };
  if (apiKey) h.authorization = `Bearer ${apiKey}`;
  return h;
}
