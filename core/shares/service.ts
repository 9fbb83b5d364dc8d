import { issueToken, tokenHash, tokenPreview } from '../auth/tokens.ts';
import type { Clock } from '../clock.ts';
import { notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Db } from '../store/types.ts';

/**
 * Share links (DESIGN.md "Queue, worker, scheduler"): a read-only link to one run or conversation.
 * The token is returned once and stored only as a keyed hash (like every issued secret); the list
 * shows prefix + last 4. Only the owner of the record may share it, and only they see or revoke
 * their links. Opening a link is in ./public-view.ts.
 */

export type ShareKind = 'run' | 'conversation';

export interface ShareDeps {
  db: Db;
  clock: Clock;
  /** core.auth.tokenKey: the HMAC key of stored token hashes. */
  tokenKey: Buffer;
  /** SERVICE_APP_ORIGIN, for the `url` of a new link. */
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

interface Row {
  id: string;
  kind: ShareKind;
  target_id: string;
  preview: string;
  created_at: string;
  revoked_at: string | null;
}
const COLUMNS = 'id, kind, target_id, preview, created_at, revoked_at';

const view = (r: Row): ShareView => ({
  id: r.id,
  kind: r.kind,
  targetId: r.target_id,
  preview: r.preview,
  status: r.revoked_at ? 'revoked' : 'active',
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

/** The public path of a share token (the path segment is the only credential). */
export const sharePath = (token: string) => `/api/public/share/${token}`;

/** The workspace of the record if `userId` owns it; undefined otherwise (the caller answers 404). */
async function ownedTarget(db: Db, kind: ShareKind, id: string, userId: string): Promise<string | undefined> {
  const table = kind === 'run' ? 'runs' : 'conversations';
  const row = await db.one<{ workspace_id: string }>(`SELECT workspace_id FROM ${table} WHERE id = ? AND user_id = ?`, [id, userId]);
  return row?.workspace_id;
}

/** Creates a link to the caller's own run or conversation; someone else's (or none) is a 404. */
export async function createShare(deps: ShareDeps, userId: string, input: { kind: ShareKind; id: string }) {
  const workspaceId = await ownedTarget(deps.db, input.kind, input.id, userId);
  if (!workspaceId) throw notFound(input.kind === 'run' ? 'Run' : 'Conversation');
  const token = issueToken('share');
  const id = newId('shr');
  const now = new Date(deps.clock.now()).toISOString();
  const preview = tokenPreview(token);
  await deps.db.run(
    'INSERT INTO shares (id, workspace_id, user_id, kind, target_id, token_hash, preview, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [id, workspaceId, userId, input.kind, input.id, tokenHash(deps.tokenKey, token), preview, now],
  );
  return { id, token, kind: input.kind, targetId: input.id, url: deps.appOrigin.replace(/\/+$/, '') + sharePath(token), preview, createdAt: now };
}

/** The caller's links, newest first, revoked ones included (with their status). */
export async function listShares(deps: Pick<ShareDeps, 'db'>, userId: string): Promise<ShareView[]> {
  const rows = await deps.db.all<Row>(`SELECT ${COLUMNS} FROM shares WHERE user_id = ? ORDER BY created_at DESC, id DESC`, [userId]);
  return rows.map(view);
}

/** Revokes one of the caller's links (idempotent); another user's is a 404. */
export async function revokeShare(deps: Pick<ShareDeps, 'db' | 'clock'>, userId: string, id: string): Promise<ShareView> {
  const now = new Date(deps.clock.now()).toISOString();
  await deps.db.run('UPDATE shares SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL', [now, id, userId]);
  const row = await deps.db.one<Row>(`SELECT ${COLUMNS} FROM shares WHERE id = ? AND user_id = ?`, [id, userId]);
  if (!row) throw notFound('Share link');
  return view(row);
}
