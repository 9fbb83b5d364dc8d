/** `instructions` + `input` → chat `messages`; references to stored items are refused. */
import type { ChatContentPart, ChatMessage, ChatToolCall } from '../../wire/openai.ts';
import { invalid, isObj, obj, refuse, str } from './check.ts';

const MESSAGE_ROLES = new Set(['user', 'assistant', 'system', 'developer']);
// Arrive when a previous output is fed back as input.
const MESSAGE_KEYS = new Set(['type', 'role', 'content', 'id', 'status', 'phase']);
const CALL_KEYS = new Set(['type', 'call_id', 'name', 'arguments', 'id', 'status']);
const CALL_OUTPUT_KEYS = new Set(['type', 'call_id', 'output', 'id', 'status']);

export function toMessages(instructions: string | null, input: unknown): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (instructions !== null) messages.push({ role: 'system', content: instructions });
  if (typeof input === 'string') {
    messages.push({ role: 'user', content: input });
    return messages;
  }
  if (!Array.isArray(input)) throw invalid('input', 'input must be a string or a list of input items.');
  if (input.length === 0) throw invalid('input', 'input must not be empty.');
  for (let i = 0; i < input.length; i++) addItem(messages, input[i], `input[${i}]`);
  return messages;
}

function addItem(messages: ChatMessage[], raw: unknown, at: string): void {
  const item = obj(raw, at);
  const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
  if (type === 'message') return void messages.push(message(item, at));
  if (type === 'function_call') return void appendToolCall(messages, toolCall(item, at));
  if (type === 'function_call_output') return void messages.push(toolOutput(item, at));
  throw refuse('unsupported_input_item', `${at}.type`, `Input items of type ${JSON.stringify(type)} are not supported by this stateless gateway.`);
}

function onlyKeys(item: Record<string, unknown>, allowed: Set<string>, at: string): void {
  for (const k of Object.keys(item)) {
    if (!allowed.has(k)) throw invalid(`${at}.${k}`, `${at}.${k} is not supported.`);
  }
}

function message(item: Record<string, unknown>, at: string): ChatMessage {
  onlyKeys(item, MESSAGE_KEYS, at);
  const role = item.role;
  if (typeof role !== 'string' || !MESSAGE_ROLES.has(role)) {
    throw invalid(`${at}.role`, `${at}.role must be one of user, assistant, system, developer.`);
  }
  const content = item.content;
  if (typeof content === 'string') return { role: role as ChatMessage['role'], content };
  if (!Array.isArray(content)) throw invalid(`${at}.content`, `${at}.content must be a string or a list of content parts.`);
  const parts = content.map((p, j) => part(p, `${at}.content[${j}]`, role));
  // Every adapter handles plain strings.
  const only = parts.length === 1 ? parts[0] : undefined;
  if (only !== undefined && only.type === 'text') return { role: role as ChatMessage['role'], content: (only as { text: string }).text };
  return { role: role as ChatMessage['role'], content: parts };
}

function part(raw: unknown, at: string, role: string): ChatContentPart {
  const p = obj(raw, at);
  switch (p.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: str(p.text, `${at}.text`) };
    case 'refusal':
      if (role !== 'assistant') throw invalid(`${at}.type`, 'refusal parts belong to assistant messages.');
      return { type: 'refusal', refusal: str(p.refusal, `${at}.refusal`) };
    case 'input_image': {
      if (role !== 'user') throw invalid(`${at}.type`, 'Images are accepted in user messages only.');
      if (p.file_id != null) throw invalid(`${at}.file_id`, 'file_id needs stored files; send image_url (an https or data: URL).');
      const url = str(p.image_url, `${at}.image_url`);
      const detail = p.detail ?? 'auto';
      if (detail !== 'auto' && detail !== 'low' && detail !== 'high') throw invalid(`${at}.detail`, `${at}.detail must be auto, low or high.`);
      return { type: 'image_url', image_url: { url, detail } };
    }
    default:
      throw invalid(`${at}.type`, `Content parts of type ${JSON.stringify(p.type)} are not supported.`);
  }
}

function toolCall(item: Record<string, unknown>, at: string): ChatToolCall {
  onlyKeys(item, CALL_KEYS, at);
  return {
    id: str(item.call_id, `${at}.call_id`),
    type: 'function',
    function: { name: str(item.name, `${at}.name`), arguments: str(item.arguments, `${at}.arguments`) },
  };
}

/** Joins the previous assistant message: providers reject two in a row. */
function appendToolCall(messages: ChatMessage[], call: ChatToolCall): void {
  const last = messages[messages.length - 1];
  if (last !== undefined && last.role === 'assistant') {
    (last.tool_calls ??= []).push(call);
    return;
  }
  messages.push({ role: 'assistant', content: null, tool_calls: [call] });
}

function toolOutput(item: Record<string, unknown>, at: string): ChatMessage {
  onlyKeys(item, CALL_OUTPUT_KEYS, at);
  const callId = str(item.call_id, `${at}.call_id`);
  const out = item.output;
  if (typeof out === 'string') return { role: 'tool', tool_call_id: callId, content: out };
  if (!Array.isArray(out)) throw invalid(`${at}.output`, `${at}.output must be a string or a list of input_text parts.`);
  // Chat tool messages carry text only.
  const texts = out.map((p, j) => {
    const pat = `${at}.output[${j}]`;
    if (!isObj(p) || p.type !== 'input_text') throw invalid(`${pat}.type`, 'Tool outputs may contain input_text parts only.');
    return { type: 'text' as const, text: str(p.text, `${pat}.text`) };
  });
  return { role: 'tool', tool_call_id: callId, content: texts };
}
