import type { AgentVersion } from '../agents/types.ts';
import type { ChatMessage, ChatTool, ChatToolCall } from '../wire/openai.ts';
import type { ToolDefinition } from '../tools/types.ts';
import type { ConversationMessage } from './conversations.ts';
import type { StepRow } from './types.ts';

/** What a completed model step stores as its output: the assistant message. */
export interface AssistantOutput {
  content: string | null;
  tool_calls?: ChatToolCall[];
}

/** Rebuilt from the ledger on every (re)start, so a reclaimed run continues exactly. */
export function buildMessages(version: AgentVersion, previous: ConversationMessage[], input: string, steps: StepRow[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (version.instructions.trim()) messages.push({ role: 'system', content: version.instructions });
  for (const m of previous) messages.push({ role: m.role, content: m.content });
  messages.push({ role: 'user', content: input });
  for (const s of steps) {
    if (s.kind === 'model' && s.status === 'completed' && s.output) {
      const out = JSON.parse(s.output) as AssistantOutput;
      messages.push({ role: 'assistant', content: out.content, ...(out.tool_calls?.length ? { tool_calls: out.tool_calls } : {}) });
    } else if (s.kind === 'tool' && (s.status === 'completed' || s.status === 'failed' || s.status === 'rejected')) {
      messages.push({ role: 'tool', tool_call_id: s.call_id ?? '', content: s.output ?? s.error ?? '' });
    }
  }
  return messages;
}

export function chatTools(version: AgentVersion, lookup: (type: string) => ToolDefinition | undefined): ChatTool[] {
  const out: ChatTool[] = [];
  for (const t of version.tools) {
    const def = lookup(t.type);
    if (def) out.push({ type: 'function', function: { name: t.name, description: def.description, parameters: def.parameters } });
  }
  return out;
}
