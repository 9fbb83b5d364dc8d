import type { ChatContentPart, ChatMessage, ChatRequest } from '../../wire/openai.ts';
import { errorBody } from '../errors.ts';
import { UpstreamError } from '../types.ts';
import { ANTHROPIC_VERSION, type AnthropicBlock, type AnthropicMessage } from './types.ts';

/** Chat request → Anthropic Messages; the mapping is in docs/providers.md. Thinking
 * budgets stay below max_tokens, and drop temperature and top_p (Anthropic refuses them). */
export const THINKING_BUDGET = { minimal: 1024, low: 2048, medium: 8192, high: 24576 } as const;
const DEFAULT_MAX_TOKENS = 4096;

export function toAnthropicRequest(req: ChatRequest, stream: boolean): Record<string, unknown> {
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  const push = (role: 'user' | 'assistant', blocks: AnthropicBlock[]) => {
    if (blocks.length === 0) return;
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };

  req.messages.forEach((m, i) => {
    switch (m.role) {
      case 'system':
      case 'developer': {
        const t = textOf(m.content);
        if (t) system.push(t);
        break;
      }
      case 'user':
        push('user', contentBlocks(m.content, i));
        break;
      case 'assistant': {
        const blocks = contentBlocks(m.content, i);
        for (const tc of m.tool_calls ?? []) {
          blocks.push({ type: 'tool_use', id: tc.id, name: tc.function.name, input: parseArgs(tc.function.arguments, i) });
        }
        push('assistant', blocks);
        break;
      }
      case 'tool':
        push('user', [{ type: 'tool_result', tool_use_id: String(m.tool_call_id ?? ''), content: toolResultContent(m) }]);
        break;
      default:
        throw invalid(`messages[${i}].role`, `Unsupported message role "${String(m.role)}".`);
    }
  });

  const rf = req.response_format;
  if (rf?.type === 'json_object') system.push('Respond with a single JSON object and nothing else.');
  else if (rf?.type === 'json_schema') {
    const s = rf.json_schema;
    system.push(`Respond with a single JSON object and nothing else, conforming to the JSON schema "${s.name}"` +
      (s.description ? ` (${s.description})` : '') + `: ${JSON.stringify(s.schema ?? {})}`);
  }

  const limit = req.max_completion_tokens ?? req.max_tokens ?? undefined;
  let maxTokens = limit ?? DEFAULT_MAX_TOKENS;
  let thinking: { type: 'enabled'; budget_tokens: number } | undefined;
  if (req.reasoning_effort) {
    let budget: number = THINKING_BUDGET[req.reasoning_effort];
    if (limit === undefined) maxTokens = budget + DEFAULT_MAX_TOKENS;
    else budget = Math.min(budget, limit - 1);
    if (budget >= 1024) thinking = { type: 'enabled', budget_tokens: budget };
  }

  const out: Record<string, unknown> = { model: req.model, max_tokens: maxTokens, messages };
  if (system.length) out.system = system.join('\n\n');
  if (stream) out.stream = true;
  if (thinking) out.thinking = thinking;
  else {
    if (req.temperature != null) out.temperature = Math.min(1, Math.max(0, req.temperature));
    if (req.top_p != null) out.top_p = req.top_p;
  }
  if (req.stop != null) out.stop_sequences = Array.isArray(req.stop) ? req.stop : [req.stop];
  if (req.user) out.metadata = { user_id: req.user };
  if (req.tools?.length) {
    out.tools = req.tools.map((t) => ({
      name: t.function.name,
      ...(t.function.description ? { description: t.function.description } : {}),
      input_schema: t.function.parameters ?? { type: 'object', properties: {} },
    }));
  }
  const choice = toolChoice(req);
  if (choice) out.tool_choice = choice;
  return out;
}

function toolChoice(req: ChatRequest): Record<string, unknown> | undefined {
  const tc = req.tool_choice;
  let out: Record<string, unknown> | undefined;
  if (tc === 'auto') out = { type: 'auto' };
  else if (tc === 'required') out = { type: 'any' };
  else if (tc === 'none') out = { type: 'none' };
  else if (tc && typeof tc === 'object') out = { type: 'tool', name: tc.function.name };
  if (req.parallel_tool_calls === false && req.tools?.length && out?.type !== 'none') {
    out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  }
  return out;
}

export function anthropicHeaders(apiKey: string | undefined, stream: boolean): Record<string, string> {
  const h: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    'anthropic-version': ANTHROPIC_VERSION,
  };
  if (apiKey) h['x-api-key'] = apiKey;
  return h;
}

function textOf(content: ChatMessage['content']): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).filter(Boolean).join('\n');
}

function contentBlocks(content: ChatMessage['content'], i: number): AnthropicBlock[] {
  if (content == null || content === '') return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const out: AnthropicBlock[] = [];
  for (const p of content) {
    const b = partBlock(p, i);
    if (b) out.push(b);
  }
  return out;
}

function partBlock(p: ChatContentPart, i: number): AnthropicBlock | undefined {
  if (p.type === 'text') return typeof p.text === 'string' && p.text ? { type: 'text', text: p.text } : undefined;
  if (p.type === 'image_url') {
    const url = (p as { image_url?: { url?: string } }).image_url?.url ?? '';
    const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
    if (m) return { type: 'image', source: { type: 'base64', media_type: m[1]!, data: m[2]! } };
    if (/^https?:\/\//.test(url)) return { type: 'image', source: { type: 'url', url } };
    throw invalid(`messages[${i}].content`, 'An image must be a base64 data: URL or an http(s) URL.');
  }
  throw invalid(`messages[${i}].content`, `Content part type "${p.type}" is not supported by this provider.`);
}

function toolResultContent(m: ChatMessage): string | AnthropicBlock[] {
  if (typeof m.content === 'string') return m.content;
  if (m.content == null) return '';
  return m.content.filter((p) => p.type === 'text').map((p) => ({ type: 'text' as const, text: String((p as { text?: unknown }).text ?? '') }));
}

function parseArgs(args: string, i: number): unknown {
  if (!args) return {};
  try {
    return JSON.parse(args);
  } catch {
    throw invalid(`messages[${i}].tool_calls`, 'Tool call arguments must be a JSON object.');
  }
}

/** Inexpressible for this upstream: a 400, never sent. */
function invalid(param: string, message: string): UpstreamError {
  return new UpstreamError(400, errorBody(message, 'invalid_request_error', 'invalid_request', param), { noWork: false });
}
