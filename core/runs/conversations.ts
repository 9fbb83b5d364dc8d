import { newId } from '../ids.ts';
import type { Queryable } from '../store/types.ts';
import { retryOnUniqueViolation } from '../store/retry.ts';

export interface ConversationMessage {
  role: 'user' | 'assistant';
  content: string;
}

export async function createConversation(q: Queryable, c: { id?: string | undefined; workspaceId: string; userId: string; agentId: string; title: string; nowIso: string }): Promise<string> {
  const id = c.id ?? newId('conv');
  await q.run('INSERT INTO conversations (id, workspace_id, user_id, agent_id, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
    id,
    c.workspaceId,
    c.userId,
    c.agentId,
    c.title.slice(0, 80),
    c.nowIso,
    c.nowIso,
  ]);
  return id;
}

/** The caller's conversation with this agent, or undefined (the route answers 404 either way). */
export async function ownedConversation(q: Queryable, id: string, userId: string, agentId: string): Promise<boolean> {
  return !!(await q.one('SELECT 1 AS x FROM conversations WHERE id = ? AND user_id = ? AND agent_id = ?', [id, userId, agentId]));
}

/** Messages recorded before this run, oldest first (what the model sees as history). */
export async function history(q: Queryable, conversationId: string, beforeRunId: string): Promise<ConversationMessage[]> {
  const rows = await q.all<{ role: 'user' | 'assistant'; content: string; run_id: string | null }>(
    'SELECT role, content, run_id FROM conversation_messages WHERE conversation_id = ? ORDER BY seq',
    [conversationId],
  );
  return rows.filter((r) => r.run_id !== beforeRunId).map((r) => ({ role: r.role, content: r.content }));
}

/** Appends a message with the next sequence number (two runs of one conversation may race). */
export async function appendMessage(q: Queryable, conversationId: string, m: ConversationMessage & { runId: string; nowIso: string }): Promise<void> {
  await retryOnUniqueViolation(() =>
    q.run(
      `INSERT INTO conversation_messages (conversation_id, seq, role, content, run_id, created_at)
       SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ? FROM conversation_messages WHERE conversation_id = ?`,
      [conversationId, m.role, m.content, m.runId, m.nowIso, conversationId],
    ),
  );
  await q.run('UPDATE conversations SET updated_at = ? WHERE id = ?', [m.nowIso, conversationId]);
}
