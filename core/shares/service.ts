import { issueToken, tokenHash, tokenPreview } from '../auth/tokens.ts';
import type { Clock } from '../kernel/clock.ts';
import { notFound } from '../kernel/errors.ts';
import { newId } from '../kernel/ids.ts';
import type { Db } from '../store/types.ts';
import * as repo from './repo.ts';
import type { ShareKind, ShareRow } from './repo.ts';

/**
 * Read-only links to one run or conversation, owner-managed; tokens kept only as keyed hashes.
 * Opening a link: ./public-view.ts.
 */

export interface ShareDeps {
  db: Db;
  clock: Clock;
  /** core.auth.tokenKey, for stored token hashes. */
  tokenKey: Buffer;
  /** SERVICE_APP_ORIGIN, for a new link's `url`. */
  appOrigin: string;
}

export interface ShareView {
  id: string;
  kind: ShareKind;
  targetId: string;
  preview: string;
  status: 'active' | 'revoked';
  createdAt: string;
  revokedAt: string | null;
}

const view = (r: ShareRow): ShareView => ({
  id: r.id,
  kind: r.kind,
  targetId: r.target_id,
  preview: r.preview,
  status: r.revoked_at ? 'revoked' : 'active',
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

/** The path segment is the only credential. */
export const sharePath = (token: string) => `/api/public/share/${token}`;

/** The caller's own record only; anything else is a 404. */
export async function createShare(deps: ShareDeps, userId: string, input: { kind: ShareKind; id: string }) {
  const workspaceId = await repo.ownedTargetWorkspace(deps.db, input.kind, input.id, userId);
  if (!workspaceId) throw notFound(input.kind === 'run' ? 'Run' : 'Conversation');
  const token = issueToken('share');
  const id = newId('shr');
  const now = new Date(deps.clock.now()).toISOString();
  const preview = tokenPreview(token);
  await repo.insertShare(deps.db, {
    id, workspace_id: workspaceId, user_id: userId, kind: input.kind, target_id: input.id, token_hash: tokenHash(deps.tokenKey, token), preview, created_at: now,
  });
  return { id, token, kind: input.kind, targetId: input.id, url: deps.appOrigin.replace(/\/+$/, '') + sharePath(token), preview, createdAt: now };
}

/** The caller's links, newest first, revoked ones included. */
export async function listShares(deps: Pick<ShareDeps, 'db'>, userId: string): Promise<ShareView[]> {
  const rows = await repo.sharesOfUser(deps.db, userId);
  return rows.map(view);
}

/** Idempotent; another user's link is a 404. */
export async function revokeShare(deps: Pick<ShareDeps, 'db' | 'clock'>, userId: string, id: string): Promise<ShareView> {
  const now = new Date(deps.clock.now()).toISOString();
  await repo.revokeShareRow(deps.db, id, userId, now);
  const row = await repo.shareOfUser(deps.db, id, userId);
  if (!row) throw notFound('Share link');
  return view(row);
}
