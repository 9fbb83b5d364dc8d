import { mintPreviewLink, type PreviewLinkDeps } from '../apps/service.ts';
import { tokenHash, wellFormed } from '../auth/tokens.ts';
import type { Clock } from '../kernel/clock.ts';
import { conversationById } from '../conversations/service.ts';
import { AppError } from '../kernel/errors.ts';
import { readRun } from '../runs/read.ts';
import { runOwner } from '../runs/repo/runs.ts';
import type { Db } from '../store/types.ts';
import { activeShareByHash } from './repo.ts';

/**
 * `GET /api/public/share/:token`. Fields are allowlisted, so new run fields never leak;
 * every failure is one identical 404 (docs/public-endpoints.md).
 */

export interface PublicShareDeps {
  db: Db;
  clock: Clock;
  tokenKey: Buffer;
  /** For fresh preview links to a shared run's apps. */
  preview: PreviewLinkDeps;
}

export const shareNotFound = () => new AppError('not_found', 'Share link not found.', { uniformBody: true });

export async function openShare(deps: PublicShareDeps, token: string) {
  if (!wellFormed(token, 'share')) throw shareNotFound();
  const share = await activeShareByHash(deps.db, tokenHash(deps.tokenKey, token));
  if (!share) throw shareNotFound();
  const view = share.kind === 'run' ? await runShare(deps, share.target_id) : await conversationShare(deps, share.target_id);
  if (!view) throw shareNotFound();
  return { kind: share.kind, sharedAt: share.created_at, ...view };
}

async function runShare(deps: PublicShareDeps, runId: string) {
  const owner = await runOwner(deps.db, runId);
  if (!owner) return undefined;
  // The share link is the authorisation: we pass the run's own owner. Abandonment still applies.
  const full = await readRun(deps, owner.agent_id, runId, owner.user_id);
  const r = full.run;
  return {
    run: {
      runId: r.runId,
      agentId: r.agentId,
      agentVersion: r.agentVersion,
      status: r.status,
      inputText: r.inputText,
      outputText: r.outputText,
      error_message: r.error_message,
      errorCode: r.errorCode,
      createdAt: r.createdAt,
      startedAt: r.startedAt,
      finishedAt: r.finishedAt,
    },
    steps: full.steps.map((s) => ({
      seq: s.seq,
      kind: s.kind,
      status: s.status,
      name: s.name,
      input: s.input,
      output: s.output,
      error: s.error,
      provider: s.provider,
      model: s.model,
      usage: s.usage,
      startedAt: s.startedAt,
      finishedAt: s.finishedAt,
    })),
    usage: full.usage,
    // The share link authorises opening them too.
    apps: full.apps.map((a) => ({ ...a, preview: mintPreviewLink(deps.preview, { ...a, workspaceId: owner.workspace_id }) })),
  };
}

async function conversationShare(deps: PublicShareDeps, id: string) {
  const c = await conversationById(deps.db, id);
  if (!c) return undefined;
  return {
    conversation: {
      title: c.title,
      createdAt: c.created_at,
      updatedAt: c.updated_at,
      messages: c.messages.map((m) => ({ seq: m.seq, role: m.role, content: m.content, createdAt: m.createdAt })),
    },
  };
}
