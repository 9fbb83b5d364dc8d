// /api/v1 checks bodies by hand, so schemas are written here;
// tests run each example through the route's checker.
import { checkChatRequest, checkEmbeddingsRequest } from '../../core/gateway/chat-request.ts';
import { parseResponsesRequest } from '../../core/gateway/responses/request.ts';
import type { Operation } from './types.ts';

const K = 'bearer member key' as const;
const HAND = 'Checked by hand on the hot path: this schema is written for the document (the route checks the fields it names and passes the rest of OpenAI\'s fields to the upstream).';
const RATE = 'Every answer carries `x-request-id` and OpenAI\'s `x-ratelimit-*` headers; `x-svc-model` names the model that served.';

const num = (minimum: number, maximum: number, type: 'number' | 'integer' = 'number') => ({ type: [type, 'null'], minimum, maximum });

const CHAT_SCHEMA = {
  type: 'object',
  description: HAND,
  required: ['model', 'messages'],
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 256, description: 'An id from GET /api/v1/models (`<account slug>/<model>`, `local/<model>`), or `service/conduit` for task-aware routing.' },
    messages: {
      type: 'array', minItems: 1,
      items: {
        type: 'object', required: ['role'],
        properties: { role: { enum: ['system', 'developer', 'user', 'assistant', 'tool', 'function'] }, content: { anyOf: [{ type: 'string' }, { type: 'array' }, { type: 'null' }] } },
      },
    },
    stream: { type: ['boolean', 'null'], description: 'Server-sent events, ending with `data: [DONE]`.' },
    temperature: num(0, 2),
    top_p: num(0, 1),
    seed: num(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 'integer'),
    max_tokens: num(1, 10_000_000, 'integer'),
    max_completion_tokens: num(1, 10_000_000, 'integer'),
    n: num(1, 128, 'integer'),
    presence_penalty: num(-2, 2),
    frequency_penalty: num(-2, 2),
    user: { type: 'string', maxLength: 256 },
    reasoning_effort: { enum: ['minimal', 'low', 'medium', 'high', null] },
    response_format: { type: ['object', 'null'], properties: { type: { enum: ['text', 'json_object', 'json_schema'] }, json_schema: { type: 'object', required: ['name'] } } },
    tools: { type: 'array' },
  },
  additionalProperties: true,
};

const RESPONSES_SCHEMA = {
  type: 'object',
  description: `${HAND} Stateless: fields that need stored responses (previous_response_id, conversation, metadata, …) are refused by name (\`unsupported_responses_field\` and friends).`,
  required: ['model', 'input'],
  properties: {
    model: { type: 'string', minLength: 1 },
    input: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }] },
    instructions: { type: ['string', 'null'] },
    stream: { type: ['boolean', 'null'], description: 'Responses events; ends with response.completed (no [DONE]).' },
    temperature: num(0, 2),
    top_p: num(0, 1),
    max_output_tokens: num(1, 10_000_000, 'integer'),
    tools: { type: 'array' },
    tool_choice: {},
    text: { type: 'object' },
    reasoning: { type: 'object' },
    store: { const: false },
    user: { type: 'string', maxLength: 256 },
  },
};

const EMBEDDINGS_SCHEMA = {
  type: 'object',
  description: HAND,
  required: ['model', 'input'],
  properties: {
    model: { type: 'string', minLength: 1 },
    input: {
      anyOf: [
        { type: 'string' },
        { type: 'array', minItems: 1, maxItems: 2048, items: { type: 'string' } },
        { type: 'array', minItems: 1, maxItems: 2048, items: { type: 'integer' } },
        { type: 'array', minItems: 1, maxItems: 2048, items: { type: 'array', items: { type: 'integer' } } },
      ],
    },
    encoding_format: { enum: ['float', 'base64'] },
    dimensions: num(1, 100_000, 'integer'),
  },
};

const CHAT_EXAMPLE = { model: 'openai/gpt-4.1-mini', messages: [{ role: 'user', content: 'Say hi in five words.' }], temperature: 0.3 };

export const GATEWAY_OPERATIONS: Operation[] = [
  {
    method: 'GET', path: '/api/v1/models', tag: 'Gateway', auth: K, summary: 'Models of the key\'s workspace',
    description: `Each enabled provider account's models as \`<slug>/<model>\`, the local target's as \`local/<model>\`, and \`service/conduit\`. Accounts whose server did not answer are named in \`x-svc-unavailable-providers\`. ${RATE}`,
    responses: { 200: '`{object:"list", data:[{id, object:"model", created, owned_by}]}`.' },
  },
  {
    method: 'GET', path: '/api/v1/models/{model}', mounted: '/api/v1/models/*', tag: 'Gateway', auth: K, summary: 'One model',
    description: 'The id keeps its slash: `/api/v1/models/openai/gpt-4.1-mini` (or percent-encoded).',
    responses: { 200: '`{id, object:"model", created, owned_by}`.', 400: '`invalid_model_id`: bad percent-encoding.', 404: '`model_not_found`.' },
  },
  {
    method: 'POST', path: '/api/v1/chat/completions', tag: 'Gateway', auth: K, summary: 'Chat completions (OpenAI-compatible, streaming with SSE)',
    description: RATE,
    request: { jsonSchema: CHAT_SCHEMA, check: checkChatRequest, example: CHAT_EXAMPLE },
    responses: { 200: 'A chat.completion, or `text/event-stream` chunks when `stream` is true.', 404: '`model_not_found`.', 429: 'A rate or token limit (`Retry-After`).', 502: 'The upstream failed or could not be reached (OpenAI error shape).' },
  },
  {
    method: 'POST', path: '/api/v1/responses', tag: 'Gateway', auth: K, summary: 'Responses API (stateless, translated onto chat)',
    description: RATE,
    request: { jsonSchema: RESPONSES_SCHEMA, check: parseResponsesRequest, example: { model: 'openai/gpt-4.1-mini', input: 'Say hi in five words.', instructions: 'Be terse.' } },
    responses: { 200: 'A response object, or Responses events when `stream` is true.', 404: '`model_not_found`.', 429: 'A limit (`Retry-After`).', 502: 'The upstream failed.' },
  },
  {
    method: 'POST', path: '/api/v1/embeddings', tag: 'Gateway', auth: K, summary: 'Embeddings',
    description: RATE,
    request: { jsonSchema: EMBEDDINGS_SCHEMA, check: checkEmbeddingsRequest, example: { model: 'openai/text-embedding-3-small', input: ['first text', 'second text'] } },
    responses: { 200: '`{object:"list", data:[{embedding, index}], model, usage}`.', 404: '`model_not_found`.', 429: 'A limit.', 502: 'The upstream failed.' },
  },
  { method: 'GET', path: '/api/v1/quota', tag: 'Gateway', auth: K, summary: 'The key\'s limits and what is left', responses: { 200: '`{object:"quota", workspace_id, user_id, key_id, …}`.' } },
  {
    method: 'GET', path: '/api/v1/usage', tag: 'Gateway', auth: K, summary: 'Your usage by day and model',
    query: [
      { name: 'from', description: 'YYYY-MM-DD (default: 29 days before `to`).', schema: { type: 'string', format: 'date' } },
      { name: 'to', description: 'YYYY-MM-DD (default: today, UTC).', schema: { type: 'string', format: 'date' } },
      { name: 'scope', description: '`member` (default: all your keys in this workspace) or `key` (this key only).', schema: { type: 'string', enum: ['member', 'key'] } },
    ],
    responses: { 200: '`{object:"usage", scope, from, to, totals, data:[…]}`.', 400: 'Bad dates or scope.' },
  },
  {
    method: 'POST', path: '/api/v1/router', tag: 'Gateway', auth: K, summary: 'The routing decision for a chat request, without serving it',
    description: 'Takes a chat completions body; answers which family and model `service/conduit` would choose, with candidates and reasons. No model call.',
    request: { jsonSchema: CHAT_SCHEMA, check: checkChatRequest, example: { model: 'service/conduit', messages: [{ role: 'user', content: 'Write a Python function that parses ISO dates.' }] } },
    responses: { 200: '`{object:"router.decision", model, task, family, chosen, candidates, reasons}`.' },
  },
];
