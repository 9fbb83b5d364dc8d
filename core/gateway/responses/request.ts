/** A strict allowlist; decisions beyond SPEC's table: docs/responses.md. */
import type { CodeWithStatus } from '../../kernel/codes.ts';
import type { ChatRequest } from '../../wire/openai.ts';
import { bool, codePoints, integer, invalid, numberIn, obj, oneOf, refuse, str } from './check.ts';
import { parseReasoning, parseText } from './format.ts';
import { toMessages } from './input.ts';
import { parseToolChoice, parseTools } from './tools.ts';
import type { ParsedResponsesRequest, ResponsesMeta } from './types.ts';

const NAMED_REFUSALS: Record<string, [code: CodeWithStatus<400>, why: string]> = {
  metadata: ['metadata_not_supported', 'metadata needs stored responses; this gateway is stateless.'],
  previous_response_id: ['previous_response_id_not_supported', 'previous_response_id needs stored responses; send the whole conversation in input.'],
  conversation: ['response_state_not_supported', 'conversation state is not kept; send the whole conversation in input.'],
  state: ['response_state_not_supported', 'response state is not kept; send the whole conversation in input.'],
};

const CHAT_SERVICE_TIERS = ['auto', 'default', 'flex', 'scale', 'priority', 'fast'] as const;
const USER_MAX = 256;

type Handler = (v: unknown, m: ResponsesMeta, chat: ChatRequest) => void;

// Anything not here or in NAMED_REFUSALS is unrecognised.
const FIELDS: Record<string, Handler> = {
  model: () => {}, // checked after the loop
  input: () => {}, // translated after instructions are known
  instructions: (v, m) => { m.instructions = str(v, 'instructions'); },
  temperature: (v, m, c) => { c.temperature = m.temperature = numberIn(v, 'temperature', 0, 2); },
  top_p: (v, m, c) => { c.top_p = m.top_p = numberIn(v, 'top_p', 0, 1); },
  seed: (v, _m, c) => { c.seed = integer(v, 'seed'); },
  user: (v, m, c) => {
    const u = str(v, 'user');
    if (u.length > USER_MAX && codePoints(u) > USER_MAX) throw invalid('user', `user must be at most ${USER_MAX} characters.`);
    c.user = m.user = u;
  },
  max_output_tokens: (v, m, c) => { c.max_completion_tokens = m.max_output_tokens = integer(v, 'max_output_tokens', 1); },
  parallel_tool_calls: (v, m, c) => { c.parallel_tool_calls = m.parallel_tool_calls = bool(v, 'parallel_tool_calls'); },
  stream: (v, m, c) => { c.stream = m.stream = bool(v, 'stream'); },
  // Obfuscation pads OpenAI's own deltas; ours are re-framed, so nothing to forward.
  stream_options: (v) => {
    const o = obj(v, 'stream_options');
    for (const k of Object.keys(o)) if (k !== 'include_obfuscation') throw invalid(`stream_options.${k}`, `stream_options.${k} is not supported.`);
    if (o.include_obfuscation != null) bool(o.include_obfuscation, 'stream_options.include_obfuscation');
  },
  store: (v) => { if (v !== false) throw refuse('store_not_supported', 'store', 'store must be false: this gateway keeps no responses.'); },
  include: (v) => {
    if (!Array.isArray(v)) throw invalid('include', 'include must be a list.');
    if (v.length > 0) throw refuse('include_not_supported', 'include', 'include is not supported; send an empty list or omit it.');
  },
  truncation: (v) => { if (v !== 'disabled') throw refuse('truncation_not_supported', 'truncation', 'truncation must be "disabled".'); },
  background: (v) => {
    if (bool(v, 'background')) throw refuse('unsupported_responses_field', 'background', 'background responses need stored state; this gateway is stateless.');
  },
  text: (v, m, c) => {
    const t = parseText(v);
    m.text = { format: t.echo };
    if (t.chat !== undefined) c.response_format = t.chat;
  },
  reasoning: (v, m, c) => {
    const effort = parseReasoning(v);
    m.reasoning = { effort, summary: null };
    if (effort !== null) c.reasoning_effort = effort;
  },
  tools: (v, m, c) => {
    const t = parseTools(v);
    m.tools = t.echo;
    if (t.chat.length > 0) c.tools = t.chat;
  },
  tool_choice: () => {}, // needs tools: handled after the loop
  service_tier: (v, m, c) => { c.service_tier = m.service_tier = oneOf(v, 'service_tier', CHAT_SERVICE_TIERS); },
  prompt_cache_key: (v, m, c) => { c.prompt_cache_key = m.prompt_cache_key = str(v, 'prompt_cache_key'); },
  prompt_cache_retention: (v, m, c) => { c.prompt_cache_retention = m.prompt_cache_retention = oneOf(v, 'prompt_cache_retention', ['in_memory', '24h']); },
  safety_identifier: (v, m, c) => { c.safety_identifier = m.safety_identifier = str(v, 'safety_identifier'); },
};

export function parseResponsesRequest(body: unknown): ParsedResponsesRequest {
  const b = obj(body, 'body');
  const meta: ResponsesMeta = {
    model: '',
    instructions: null,
    temperature: null,
    top_p: null,
    max_output_tokens: null,
    parallel_tool_calls: true,
    tools: [],
    tool_choice: 'auto',
    text: { format: { type: 'text' } },
    reasoning: { effort: null, summary: null },
    stream: false,
    user: undefined,
    service_tier: null,
    prompt_cache_key: null,
    prompt_cache_retention: null,
    safety_identifier: null,
  };
  const chat: ChatRequest = { model: '', messages: [] };
  // Refusals first: a stateful request learns why before what is missing.
  for (const key of Object.keys(b)) {
    // Own keys only: `__proto__` and friends would find Object.prototype's.
    const named = Object.hasOwn(NAMED_REFUSALS, key) ? NAMED_REFUSALS[key] : undefined;
    const v = b[key];
    if (v === null || v === undefined) {
      if (named === undefined && !Object.hasOwn(FIELDS, key)) throw unrecognised(key);
      continue;
    }
    if (named !== undefined) throw refuse(named[0], key, named[1]);
    const handle = Object.hasOwn(FIELDS, key) ? FIELDS[key] : undefined;
    if (handle === undefined) throw unrecognised(key);
    handle(v, meta, chat);
  }
  const model = b.model;
  if (typeof model !== 'string' || model === '') throw invalid('model', 'model is required (a model id from /api/v1/models).');
  meta.model = chat.model = model;
  if (b.input == null) throw invalid('input', 'input is required.');
  if (b.tool_choice != null) {
    const tc = parseToolChoice(b.tool_choice, meta.tools);
    meta.tool_choice = tc.echo;
    chat.tool_choice = tc.chat;
  }
  chat.messages = toMessages(meta.instructions, b.input);
  return { chat, meta };
}

function unrecognised(key: string) {
  return refuse('unsupported_responses_field', key, `${key} is not supported: it has no chat equivalent in this gateway.`);
}
