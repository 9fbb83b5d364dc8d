import type { CodeWithStatus } from '../kernel/codes.ts';
import { AppError } from '../kernel/errors.ts';
import type { ChatRequest, EmbeddingsRequest } from '../wire/openai.ts';

const bad = (param: string, message: string, code: CodeWithStatus<400> = 'invalid_request') =>
  new AppError(code, message, { field: param, type: 'invalid_request_error' });

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
const EFFORTS = new Set(['minimal', 'low', 'medium', 'high']);
const FORMATS = new Set(['text', 'json_object', 'json_schema']);

function num(body: Record<string, unknown>, key: string, min: number, max: number, integer = false): void {
  const v = body[key];
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
    throw bad(key, `${key} must be ${integer ? 'an integer' : 'a number'} between ${min} and ${max}.`);
  }
}

/**
 * Checks only fields we read or OpenAI bounds; the upstream validates the rest.
 * Hand-written: a schema library costs more than the whole proxy hop.
 */
export function checkChatRequest(body: unknown): ChatRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw bad('', 'The request body must be a JSON object.');
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || b.model.length === 0 || b.model.length > 256) throw bad('model', 'model is required: a model id from GET /api/v1/models.');
  if (!Array.isArray(b.messages) || b.messages.length === 0) throw bad('messages', 'messages must be a non-empty array.');
  for (let i = 0; i < b.messages.length; i++) {
    const m = b.messages[i] as Record<string, unknown> | null;
    if (!m || typeof m !== 'object' || typeof m.role !== 'string' || !ROLES.has(m.role)) {
      throw bad(`messages[${i}].role`, `messages[${i}] must be an object with a role of system, developer, user, assistant or tool.`);
    }
    const c = m.content;
    if (c !== undefined && c !== null && typeof c !== 'string' && !Array.isArray(c)) throw bad(`messages[${i}].content`, 'content must be a string or an array of parts.');
  }
  if (b.stream !== undefined && b.stream !== null && typeof b.stream !== 'boolean') throw bad('stream', 'stream must be a boolean.');
  num(b, 'temperature', 0, 2);
  num(b, 'top_p', 0, 1);
  num(b, 'seed', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, true);
  num(b, 'max_tokens', 1, 10_000_000, true);
  num(b, 'max_completion_tokens', 1, 10_000_000, true);
  num(b, 'n', 1, 128, true);
  num(b, 'presence_penalty', -2, 2);
  num(b, 'frequency_penalty', -2, 2);
  if (b.user !== undefined && (typeof b.user !== 'string' || b.user.length > 256)) throw bad('user', 'user must be a string of at most 256 characters.');
  if (b.reasoning_effort !== undefined && b.reasoning_effort !== null && !EFFORTS.has(b.reasoning_effort as string)) {
    throw bad('reasoning_effort', 'reasoning_effort must be one of minimal, low, medium, high.');
  }
  const rf = b.response_format as { type?: unknown; json_schema?: { name?: unknown } } | undefined;
  if (rf !== undefined && rf !== null) {
    if (typeof rf !== 'object' || !FORMATS.has(rf.type as string)) throw bad('response_format', 'response_format.type must be text, json_object or json_schema.');
    if (rf.type === 'json_schema' && (typeof rf.json_schema !== 'object' || typeof rf.json_schema?.name !== 'string')) {
      throw bad('response_format.json_schema', 'json_schema needs a name and a schema.');
    }
  }
  if (b.tools !== undefined && !Array.isArray(b.tools)) throw bad('tools', 'tools must be an array.');
  return b as ChatRequest;
}

export function checkEmbeddingsRequest(body: unknown): EmbeddingsRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw bad('', 'The request body must be a JSON object.');
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || b.model.length === 0) throw bad('model', 'model is required.');
  const input = b.input;
  const ok =
    typeof input === 'string' ||
    (Array.isArray(input) && input.length > 0 && input.length <= 2048 &&
      (input.every((x) => typeof x === 'string') || input.every((x) => typeof x === 'number') || input.every((x) => Array.isArray(x) && x.every((y) => typeof y === 'number'))));
  if (!ok) throw bad('input', 'input must be a string, an array of up to 2048 strings, or token arrays.');
  if (b.encoding_format !== undefined && b.encoding_format !== 'float' && b.encoding_format !== 'base64') throw bad('encoding_format', 'encoding_format must be float or base64.');
  num(b, 'dimensions', 1, 100_000, true);
  return b as unknown as EmbeddingsRequest;
}
