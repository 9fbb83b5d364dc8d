import { managedAgent, type Caller } from '../agents/access.ts';
import { clearWebhookToken, setWebhookToken } from '../agents/repo.ts';
import { issueToken, tokenHash, tokenPreview } from '../auth/tokens.ts';
import type { Db } from '../store/types.ts';

/**
 * Legacy per-agent webhook tokens (`POST /api/public/webhooks/agents/:token`). One token per agent;
 * issuing again replaces it (the old one stops at once). Runs act as the user who issued it, who
 * must be the agent's owner or a workspace admin/owner (managedAgent) — and, at trigger time, still
 * able to run the agent. Prefer Workers: they carry a template, a schedule and notifications.
 */
export async function issueAgentWebhookToken(db: Db, tokenKey: Buffer, c: Caller, agentId: string) {
  await managedAgent(db, c, agentId);
  const token = issueToken('webhook');
  const preview = tokenPreview(token);
  await setWebhookToken(db, agentId, tokenHash(tokenKey, token), preview, c.userId);
  return { id: agentId, token, tokenPreview: preview, userId: c.userId };
}

export async function removeAgentWebhookToken(db: Db, c: Caller, agentId: string): Promise<void> {
  await managedAgent(db, c, agentId);
  await clearWebhookToken(db, agentId);
}
