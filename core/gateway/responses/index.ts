/**
 * Stateless `POST /api/v1/responses` translation, pure (no I/O). The route:
 *   const { chat, meta } = parseResponsesRequest(body);           // throws AppError 400s
 *   non-streamed: toResponsesEnvelope(completion, meta)            // → JSON body
 *   streamed:     for await (const e of responsesEventStream(chunks, meta)) write(formatSse(e));
 */
export { parseResponsesRequest } from './request.ts';
export { toResponsesEnvelope, type EnvelopeOptions } from './response.ts';
export { responsesEventStream, type StreamOptions } from './stream.ts';
export { formatSse } from './sse.ts';
export { newResponseIdentity, toResponsesUsage } from './envelope.ts';
export type { ParsedResponsesRequest, ResponsesMeta, ResponsesEvent, ResponseIdentity } from './types.ts';
