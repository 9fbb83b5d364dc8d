import { historyRows, insertConversation, insertMessage, touchConversation } from '../conversations/repo.ts';
import { newId } from '../kernel/ids.ts';
import type { Queryable } from '../store/types.ts';
import { retryOnUniqueViolation } from '../store/retry.ts';

export interface ConversationMessage {
  role: 'user' | 'assistant';
  content: string;
}

export async function createConversation(q: Queryable, c: { id?: string | undefined; workspaceId: string; userId: string; agentId: string; title: string; nowIso: string }): Promise<string> {
  const id = c.id ?? newId('conv');
  await insertConversation(q, { id, workspaceId: c.workspaceId, userId: c.userId, agentId: c.agentId, title: c.title.slice(0, 80), nowIso: c.nowIso });
  return id;
}

/** The model's history: messages before this run, oldest first. */
export async function history(q: Queryable, conversationId: string, beforeRunId: string): Promise<ConversationMessage[]> {
  const rows = await historyRows(q, conversationId);
  return rows.filter((r) => r.run_id !== beforeRunId).map((r) => ({ role: r.role, content: r.content }));
}

/** Retried on a race: two runs of a conversation may collide. */
export async function appendMessage(q: Queryable, conversationId: string, m: ConversationMessage & { runId: string; nowIso: string }): Promise<void> {
  await retryOnUniqueViolation(() => insertMessage(q, conversationId, m));
  await touchConversation(q, conversationId, m.nowIso);
}
