/** Hosted tools have no chat equivalent. */
import type { ChatRequest, ChatTool } from '../../wire/openai.ts';
import { invalid, isObj, obj, refuse, str } from './check.ts';
import type { ResponsesFunctionTool, ResponsesToolChoice } from './types.ts';

const TOOL_KEYS = new Set(['type', 'name', 'description', 'parameters', 'strict']);

export function parseTools(raw: unknown): { echo: ResponsesFunctionTool[]; chat: ChatTool[] } {
  if (!Array.isArray(raw)) throw invalid('tools', 'tools must be a list.');
  const echo: ResponsesFunctionTool[] = [];
  const chat: ChatTool[] = [];
  const names = new Set<string>();
  raw.forEach((t, i) => {
    const at = `tools[${i}]`;
    const tool = obj(t, at);
    if (tool.type !== 'function') {
      throw refuse('unsupported_tool', 'tools', `${at}: tools of type ${JSON.stringify(tool.type)} have no chat equivalent; only function tools are supported.`);
    }
    for (const k of Object.keys(tool)) {
      if (!TOOL_KEYS.has(k)) throw refuse('unsupported_tool_field', `${at}.${k}`, `${at}.${k} has no chat equivalent.`);
    }
    const name = str(tool.name, `${at}.name`);
    if (name === '') throw invalid(`${at}.name`, `${at}.name must not be empty.`);
    if (names.has(name)) throw invalid(`${at}.name`, `Duplicate tool name ${JSON.stringify(name)}.`);
    names.add(name);
    const description = tool.description == null ? null : str(tool.description, `${at}.description`);
    if (tool.parameters != null && !isObj(tool.parameters)) throw invalid(`${at}.parameters`, `${at}.parameters must be a JSON schema object.`);
    const parameters = (tool.parameters ?? null) as Record<string, unknown> | null;
    if (tool.strict != null && typeof tool.strict !== 'boolean') throw invalid(`${at}.strict`, `${at}.strict must be a boolean.`);
    const strict = (tool.strict ?? null) as boolean | null;
    echo.push({ type: 'function', name, description, parameters, strict });
    const fn: ChatTool['function'] = { name };
    if (description !== null) fn.description = description;
    if (parameters !== null) fn.parameters = parameters;
    if (strict !== null) fn.strict = strict;
    chat.push({ type: 'function', function: fn });
  });
  return { echo, chat };
}

export function parseToolChoice(
  raw: unknown,
  tools: ResponsesFunctionTool[],
): { echo: ResponsesToolChoice; chat: NonNullable<ChatRequest['tool_choice']> } {
  if (raw === 'none' || raw === 'auto' || raw === 'required') return { echo: raw, chat: raw };
  if (isObj(raw) && raw.type === 'function') {
    for (const k of Object.keys(raw)) {
      if (k !== 'type' && k !== 'name') throw invalid(`tool_choice.${k}`, `tool_choice.${k} is not supported.`);
    }
    const name = str(raw.name, 'tool_choice.name');
    if (!tools.some((t) => t.name === name)) throw invalid('tool_choice', `tool_choice names ${JSON.stringify(name)}, which is not in tools.`);
    return { echo: { type: 'function', name }, chat: { type: 'function', function: { name } } };
  }
  throw invalid('tool_choice', 'tool_choice must be none, auto, required or {"type":"function","name":…}.');
}
