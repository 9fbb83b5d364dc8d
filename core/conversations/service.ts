import { notFound } from '../errors.ts';
import type { Queryable } from '../store/types.ts';

/**
 * Reading conversations (`/api/app/conversations`). Writing them is the run path's job
 * (core/runs/conversations.ts); this module only reads, and only the caller's own: a
 * conversation belongs to the user who started it, never to their workspace.
 */

/** The list is bounded: the newest LIST_LIMIT conversations by last activity. */
export const LIST_LIMIT = 100;

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

interface ConversationRow {
  id: string;
  workspace_id: string;
  user_id: string;
  agent_id: string;
  title: string;
  created_at: string;
  updated_at: string;
}

/** The caller's conversations in one workspace, most recently active first. */
export async function listConversations(q: Queryable, userId: string, workspaceId: string): Promise<ConversationSummary[]> {
  const rows = await q.all<ConversationRow & { message_count: number | string }>(
    `SELECT c.id, c.agent_id, c.title, c.created_at, c.updated_at,
            (SELECT COUNT(*) FROM conversation_messages m WHERE m.conversation_id = c.id) AS message_count
       FROM conversations c
      WHERE c.user_id = ? AND c.workspace_id = ?
      ORDER BY c.updated_at DESC, c.id DESC
      LIMIT ${LIST_LIMIT}`,
    [userId, workspaceId],
  );
  return rows.map((r) => ({ id: r.id, agentId: r.agent_id, title: r.title, createdAt: r.created_at, updatedAt: r.updated_at, messageCount: Number(r.message_count) }));
}

/** Any conversation by id with its messages, oldest first; no owner check (share links use it). */
export async function conversationById(q: Queryable, id: string): Promise<(ConversationRow & { messages: ConversationMessageView[] }) | undefined> {
  const row = await q.one<ConversationRow>('SELECT id, workspace_id, user_id, agent_id, title, created_at, updated_at FROM conversations WHERE id = ?', [id]);
  if (!row) return undefined;
  const messages = await q.all<{ seq: number; role: 'user' | 'assistant'; content: string; run_id: string | null; created_at: string }>(
    'SELECT seq, role, content, run_id, created_at FROM conversation_messages WHERE conversation_id = ? ORDER BY seq',
    [id],
  );
  return { ...row, messages: messages.map((m) => ({ seq: Number(m.seq), role: m.role, content: m.content, runId: m.run_id, createdAt: m.created_at })) };
}

/**
 * The caller's conversation with its messages. Someone else's is a 404 (not a 403), so ids cannot
 * be probed. Read by id in any workspace: the id is the caller's own handle, and the run API that
 * returned it is not workspace-scoped either.
 */
export async function readConversation(q: Queryable, id: string, userId: string) {
  const c = await conversationById(q, id);
  if (!c || c.user_id !== userId) throw notFound('Conversation');
  return { id: c.id, agentId: c.agent_id, title: c.title, createdAt: c.created_at, updatedAt: c.updated_at, messageCount: c.messages.length, messages: c.messages };
}
