export type CredentialKind = 'access' | 'member' | 'admin';

/** Scopes an admin token may hold. */
export const ADMIN_SCOPES = ['usage:read', 'invitations:write', 'members:read'] as const;
export type AdminScope = (typeof ADMIN_SCOPES)[number];

/** Optional per-key limits on the gateway. */
export interface KeyLimits {
  requestsPerMinute?: number;
  tokensPerMinute?: number;
  tokensPerMonth?: number;
}

/** Who a verified bearer credential acts as. */
export interface Principal {
  credentialId: string;
  kind: CredentialKind;
  userId: string;
  workspaceId: string | null;
  scopes: string[];
  limits: KeyLimits;
  expiresAt: string | null;
}

export interface CredentialView {
  id: string;
  kind: CredentialKind;
  /** Admins listing a workspace's keys must tell owners apart. */
  userId: string;
  name: string;
  /** Prefix and last four characters only. */
  preview: string;
  workspaceId: string | null;
  scopes: string[];
  limits: KeyLimits;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}
