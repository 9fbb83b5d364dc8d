/** Members without a chat equivalent are refused by name. */
import type { ResponseFormat } from '../../wire/openai.ts';
import { invalid, isObj, obj, oneOf, refuse, str } from './check.ts';
import type { ReasoningEffort, ResponsesTextFormat } from './types.ts';

const FORMAT_TYPES = ['text', 'json_object', 'json_schema'] as const;
const JSON_SCHEMA_KEYS = new Set(['type', 'name', 'schema', 'description', 'strict']);
// OpenAI's rule: a bad name is our 400, not upstream's.
const SCHEMA_NAME = /^[A-Za-z0-9_-]{1,64}$/;
export const EFFORTS: readonly ReasoningEffort[] = ['minimal', 'low', 'medium', 'high'];

export function parseText(raw: unknown): { echo: ResponsesTextFormat; chat: ResponseFormat | undefined } {
  const text = obj(raw, 'text');
  for (const [k, v] of Object.entries(text)) {
    if (k !== 'format' && v !== null) throw refuse('unsupported_text_field', `text.${k}`, `text.${k} has no chat equivalent.`);
  }
  if (text.format == null) return { echo: { type: 'text' }, chat: undefined };
  const f = obj(text.format, 'text.format');
  const type = oneOf(f.type, 'text.format.type', FORMAT_TYPES);
  if (type !== 'json_schema') {
    for (const k of Object.keys(f)) if (k !== 'type') throw invalid(`text.format.${k}`, `text.format.${k} is not allowed with type ${type}.`);
    // text is the default: it sends nothing upstream.
    return type === 'text' ? { echo: { type }, chat: undefined } : { echo: { type }, chat: { type } };
  }
  for (const k of Object.keys(f)) {
    if (!JSON_SCHEMA_KEYS.has(k)) throw invalid(`text.format.${k}`, `text.format.${k} is not a json_schema member (name, schema, description, strict).`);
  }
  const name = str(f.name, 'text.format.name');
  if (!SCHEMA_NAME.test(name)) throw invalid('text.format.name', 'text.format.name must be 1–64 letters, digits, _ or -.');
  if (!isObj(f.schema)) throw invalid('text.format.schema', 'text.format.schema must be a JSON schema object.');
  const schema = f.schema;
  const description = f.description === undefined ? undefined : str(f.description, 'text.format.description');
  if (f.strict !== undefined && f.strict !== null && typeof f.strict !== 'boolean') throw invalid('text.format.strict', 'text.format.strict must be a boolean.');
  const strict = f.strict as boolean | null | undefined;
  const echo: ResponsesTextFormat = { type, name, schema };
  const js: { name: string; schema: Record<string, unknown>; description?: string; strict?: boolean | null } = { name, schema };
  if (description !== undefined) echo.description = js.description = description;
  if (strict !== undefined) echo.strict = js.strict = strict;
  return { echo, chat: { type: 'json_schema', json_schema: js } };
}

export function parseReasoning(raw: unknown): ReasoningEffort | null {
  const r = obj(raw, 'reasoning');
  for (const [k, v] of Object.entries(r)) {
    if (k !== 'effort' && v !== null) throw refuse('unsupported_reasoning_field', `reasoning.${k}`, `reasoning.${k} has no chat equivalent.`);
  }
  return r.effort == null ? null : oneOf(r.effort, 'reasoning.effort', EFFORTS);
}
