import type { Queryable } from '../store/types.ts';

// The conversation tables: conversations and their conversation_messages.

/** The list is bounded: the newest LIST_LIMIT conversations by last activity. */
export const LIST_LIMIT = 100;

export interface ConversationRow {
  id: string;
  workspace_id: string;
  user_id: string;
  agent_id: string;
  title: string;
  created_at: string;
  updated_at: string;
}

export interface MessageRow {
  seq: number;
  role: 'user' | 'assistant';
  content: string;
  run_id: string | null;
  created_at: string;
}

export async function insertConversation(q: Queryable, c: { id: string; workspaceId: string; userId: string; agentId: string; title: string; nowIso: string }): Promise<void> {
  await q.run('INSERT INTO conversations (id, workspace_id, user_id, agent_id, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
    c.id,
    c.workspaceId,
    c.userId,
    c.agentId,
    c.title,
    c.nowIso,
    c.nowIso,
  ]);
}

/** False for missing and foreign alike: the route answers 404 either way. */
export async function ownedConversation(q: Queryable, id: string, userId: string, agentId: string): Promise<boolean> {
  return !!(await q.one('SELECT 1 AS x FROM conversations WHERE id = ? AND user_id = ? AND agent_id = ?', [id, userId, agentId]));
}

export async function touchConversation(q: Queryable, id: string, nowIso: string): Promise<void> {
  await q.run('UPDATE conversations SET updated_at = ? WHERE id = ?', [nowIso, id]);
}

/** With message counts, most recently active first. */
export async function conversationsOf(q: Queryable, userId: string, workspaceId: string): Promise<(ConversationRow & { message_count: number | string })[]> {
  return q.all<ConversationRow & { message_count: number | string }>(
    `SELECT c.id, c.agent_id, c.title, c.created_at, c.updated_at,
            (SELECT COUNT(*) FROM conversation_messages m WHERE m.conversation_id = c.id) AS message_count
       FROM conversations c
      WHERE c.user_id = ? AND c.workspace_id = ?
      ORDER BY c.updated_at DESC, c.id DESC
      LIMIT ${LIST_LIMIT}`,
    [userId, workspaceId],
  );
}

export async function conversationRow(q: Queryable, id: string): Promise<ConversationRow | undefined> {
  return q.one<ConversationRow>('SELECT id, workspace_id, user_id, agent_id, title, created_at, updated_at FROM conversations WHERE id = ?', [id]);
}

/** A conversation's messages, oldest first. */
export async function messagesOf(q: Queryable, conversationId: string): Promise<MessageRow[]> {
  return q.all<MessageRow>('SELECT seq, role, content, run_id, created_at FROM conversation_messages WHERE conversation_id = ? ORDER BY seq', [conversationId]);
}

/** What the model's history needs of each message, oldest first. */
export async function historyRows(q: Queryable, conversationId: string): Promise<Pick<MessageRow, 'role' | 'content' | 'run_id'>[]> {
  return q.all<Pick<MessageRow, 'role' | 'content' | 'run_id'>>(
    'SELECT role, content, run_id FROM conversation_messages WHERE conversation_id = ? ORDER BY seq',
    [conversationId],
  );
}

/** Appends a message with the next sequence number; a racing append fails on the unique key. */
export async function insertMessage(q: Queryable, conversationId: string, m: { role: 'user' | 'assistant'; content: string; runId: string; nowIso: string }): Promise<void> {
  await q.run(
    `INSERT INTO conversation_messages (conversation_id, seq, role, content, run_id, created_at)
       SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ? FROM conversation_messages WHERE conversation_id = ?`,
    [conversationId, m.role, m.content, m.runId, m.nowIso, conversationId],
  );
}
