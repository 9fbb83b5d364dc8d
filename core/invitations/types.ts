import type { Role } from '../accounts/roles.ts';

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export type InvitationStatus = 'pending' | 'used' | 'revoked' | 'expired';
export type DeliveryStatus = 'not_sent' | 'queued' | 'sent' | 'delivered' | 'bounced' | 'failed';

export interface Invitation {
  id: string;
  workspaceId: string;
  email: string;
  role: Role;
  status: InvitationStatus;
  tokenPreview: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  revokedAt: string | null;
  deliveryStatus: DeliveryStatus;
  deliveryDetail: string | null;
}

/** The only time the token exists outside its hash. */
export interface IssuedInvitation extends Invitation {
  token: string;
  signUpUrl: string;
  /** Earlier pending invitations this one revoked (create only). */
  replacedInvitationIds?: string[];
}

export interface InvitationRow {
  id: string;
  workspace_id: string;
  email: string;
  role: Role;
  token_preview: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
  delivery_status: DeliveryStatus;
  delivery_detail: string | null;
}

export function toInvitation(r: InvitationRow, nowIso: string): Invitation {
  const status: InvitationStatus = r.used_at ? 'used' : r.revoked_at ? 'revoked' : r.expires_at <= nowIso ? 'expired' : 'pending';
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    email: r.email,
    role: r.role,
    status,
    tokenPreview: r.token_preview,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    usedAt: r.used_at,
    revokedAt: r.revoked_at,
    deliveryStatus: r.delivery_status,
    deliveryDetail: r.delivery_detail,
  };
}

export const INVITATION_COLUMNS =
  'id, workspace_id, email, role, token_preview, created_at, expires_at, used_at, revoked_at, delivery_status, delivery_detail';
