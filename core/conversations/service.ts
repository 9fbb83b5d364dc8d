import { notFound } from '../kernel/errors.ts';
import type { Queryable } from '../store/types.ts';
import { conversationRow, conversationsOf, messagesOf, type ConversationRow } from './repo.ts';

/**
 * Read-only (runs write: core/runs/conversations.ts). A conversation belongs to
 * the user who started it, never to their workspace.
 */

export interface ConversationSummary {
  id: string;
  agentId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
}

export interface ConversationMessageView {
  seq: number;
  role: 'user' | 'assistant';
  content: string;
  runId: string | null;
  createdAt: string;
}

/** The caller's conversations in one workspace, most recently active first. */
export async function listConversations(q: Queryable, userId: string, workspaceId: string): Promise<ConversationSummary[]> {
  const rows = await conversationsOf(q, userId, workspaceId);
  return rows.map((r) => ({ id: r.id, agentId: r.agent_id, title: r.title, createdAt: r.created_at, updatedAt: r.updated_at, messageCount: Number(r.message_count) }));
}

/** No owner check: share links use it. */
export async function conversationById(q: Queryable, id: string): Promise<(ConversationRow & { messages: ConversationMessageView[] }) | undefined> {
  const row = await conversationRow(q, id);
  if (!row) return undefined;
  const messages = await messagesOf(q, id);
  return { ...row, messages: messages.map((m) => ({ seq: Number(m.seq), role: m.role, content: m.content, runId: m.run_id, createdAt: m.created_at })) };
}

/**
 * Someone else's is a 404, so ids cannot be probed. Any workspace: the run API
 * that returned the id is not workspace-scoped either.
 */
export async function readConversation(q: Queryable, id: string, userId: string) {
  const c = await conversationById(q, id);
  if (!c || c.user_id !== userId) throw notFound('Conversation');
  return { id: c.id, agentId: c.agent_id, title: c.title, createdAt: c.created_at, updatedAt: c.updated_at, messageCount: c.messages.length, messages: c.messages };
}
