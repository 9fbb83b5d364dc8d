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
 * `GET /api/public/share/:token`: anyone holding the token reads one record, read-only.
 *
 * What an anonymous holder may learn is chosen field by field (an allowlist, so a field added to
 * the run read later does not leak here by default): the record's content, status and usage, and
 * the run's apps with fresh preview links.
 * Never: user ids, emails, the run's claim token, approval ids, the conversation link, the agent's
 * instructions or tool configuration.
 *
 * Every failure — malformed token, bad checksum, unknown, revoked, record gone — is one 404 with a
 * byte-identical body (no request id in it), so a caller cannot tell a revoked link from a typo.
 * Shape and checksum are checked first: garbage never reaches the store.
 */

export interface PublicShareDeps {
  db: Db;
  clock: Clock;
  tokenKey: Buffer;
  /** Mints the fresh preview links of a shared run's apps. */
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
  // readRun's owner check is satisfied by construction (the run's own agent and user): the share
  // link is the authorisation here. It also applies the 20-minute abandonment rule, as any read does.
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
    // Each app version with a link minted now: the share link is the authorisation to open them.
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
