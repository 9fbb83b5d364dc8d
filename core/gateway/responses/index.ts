/** Stateless, pure Responses translation (docs/responses.md). */
export { parseResponsesRequest } from './request.ts';
export { toResponsesEnvelope, type EnvelopeOptions } from './response.ts';
export { responsesEventStream, type StreamOptions } from './stream.ts';
export { formatSse } from './sse.ts';
export { newResponseIdentity, toResponsesUsage } from './envelope.ts';
export type { ParsedResponsesRequest, ResponsesMeta, ResponsesEvent, ResponseIdentity } from './types.ts';
