import type { Clock } from '../kernel/clock.ts';
import type { Db } from '../store/types.ts';
import type { PasswordHasher } from '../auth/hasher.ts';
import type { Role } from './roles.ts';

export interface User {
  id: string;
  email: string;
  name: string;
}

export interface WorkspaceRef {
  id: string;
  name: string;
  role: Role;
  /** The bootstrap account's workspace; its admins and owners are the operators. */
  operator: boolean;
  /** The workspace this user was given at registration. */
  own: boolean;
}

/** What register/login answer (DESIGN.md: `{user, workspaces}`). */
export interface AccountView {
  user: User;
  workspaces: { id: string; name: string; role: Role }[];
}

export interface AccountsDeps {
  db: Db;
  clock: Clock;
  /** HMAC key for stored token hashes (sessions, invitations, credentials). */
  tokenKey: Buffer;
  /** HMAC key that signs the CSRF double-submit value. */
  csrfKey: Buffer;
  /** Every password hash and verification, bounded in concurrency (core/auth/hasher.ts). */
  hasher: PasswordHasher;
  registrationMode: string;
}
