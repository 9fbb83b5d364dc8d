import { hash as cryptoHash } from 'node:crypto';
import { issueToken, tokenHash, tokenPreview, wellFormed, type TokenKind } from '../auth/tokens.ts';
import type { Clock } from '../kernel/clock.ts';
import { AppError, badRequest, notFound } from '../kernel/errors.ts';
import { newId } from '../kernel/ids.ts';
import type { Db } from '../store/types.ts';
import { CredentialCache } from './cache.ts';
import { credentialById, credentialsOfKind, insertCredential, liveCredentialByHash, revokeCredentialRow, touchLastUsed, type CredentialRow } from './repo.ts';
import type { CredentialKind, CredentialView, KeyLimits, Principal } from './types.ts';

export interface CredentialDeps {
  db: Db;
  clock: Clock;
  tokenKey: Buffer;
  cache: CredentialCache;
}

const TOKEN_KIND: Record<CredentialKind, TokenKind> = { access: 'access', member: 'member', admin: 'admin' };

const view = (r: CredentialRow): CredentialView => ({
  id: r.id,
  kind: r.kind,
  userId: r.user_id,
  name: r.name,
  preview: r.preview,
  workspaceId: r.workspace_id,
  scopes: JSON.parse(r.scopes) as string[],
  limits: JSON.parse(r.limits) as KeyLimits,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
  lastUsedAt: r.last_used_at,
});

export interface IssueInput {
  kind: CredentialKind;
  userId: string;
  workspaceId: string | null;
  name: string;
  scopes?: string[];
  limits?: KeyLimits;
  expiresAt?: string | null;
}

/** Creates a credential and returns its token once. */
export async function issueCredential(deps: CredentialDeps, input: IssueInput): Promise<CredentialView & { token: string }> {
  const now = deps.clock.now();
  if (input.expiresAt && Date.parse(input.expiresAt) <= now) throw badRequest('invalid_expiry', 'expiresAt must be in the future.', 'expiresAt');
  const token = issueToken(TOKEN_KIND[input.kind]);
  const id = newId('cred');
  await insertCredential(deps.db, {
    id,
    kind: input.kind,
    userId: input.userId,
    workspaceId: input.workspaceId,
    name: input.name,
    tokenHash: tokenHash(deps.tokenKey, token),
    preview: tokenPreview(token),
    scopes: JSON.stringify(input.scopes ?? []),
    limits: JSON.stringify(input.limits ?? {}),
    createdAt: new Date(now).toISOString(),
    expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
  });
  const row = await credentialById(deps.db, id);
  return { ...view(row!), token };
}

export async function listCredentials(deps: CredentialDeps, kind: CredentialKind, filter: { userId?: string; workspaceId?: string }): Promise<CredentialView[]> {
  return (await credentialsOfKind(deps.db, kind, filter)).map(view);
}

export async function getCredential(deps: CredentialDeps, id: string): Promise<CredentialView | undefined> {
  const row = await credentialById(deps.db, id);
  return row && view(row);
}

/** Revokes and drops it from this process's cache immediately. */
export async function revokeCredential(deps: CredentialDeps, id: string): Promise<CredentialView> {
  const now = new Date(deps.clock.now()).toISOString();
  await revokeCredentialRow(deps.db, id, now);
  deps.cache.dropCredential(id);
  const row = await credentialById(deps.db, id);
  if (!row) throw notFound('Credential');
  return view(row);
}

/** Shape and checksum first (no I/O), then cache, then one indexed lookup. */
export async function verifyCredential(deps: CredentialDeps, token: string, kind: CredentialKind): Promise<Principal | undefined> {
  if (!wellFormed(token, TOKEN_KIND[kind])) return undefined;
  const now = deps.clock.now();
  // Unkeyed: HMAC is too slow here, and only the store needs a keyed hash (docs/performance.md).
  const cacheKey = cryptoHash('sha256', token, 'base64url');
  const cached = deps.cache.get(cacheKey, now);
  if (cached) return cached.kind === kind ? cached : undefined;
  const hash = tokenHash(deps.tokenKey, token);
  const nowIso = new Date(now).toISOString();
  const row = await liveCredentialByHash(deps.db, hash, kind, nowIso);
  if (!row) return undefined;
  const principal: Principal = {
    credentialId: row.id,
    kind: row.kind,
    userId: row.user_id,
    workspaceId: row.workspace_id,
    scopes: JSON.parse(row.scopes) as string[],
    limits: JSON.parse(row.limits) as KeyLimits,
    expiresAt: row.expires_at,
  };
  deps.cache.set(cacheKey, principal, now);
  // One write per cache period at most, off the response path.
  touchLastUsed(deps.db, row.id, nowIso).catch(() => {});
  return principal;
}

export const wrongCredential = (expected: string) =>
  new AppError('unauthorized', `A valid ${expected} is required in the Authorization: Bearer header.`, { headers: { 'WWW-Authenticate': 'Bearer' } });
