import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { operatorOf } from '../../core/accounts/operators.ts';
import { atLeast, type Role } from '../../core/accounts/roles.ts';
import { csrfToken, sessionOf } from '../../core/accounts/sessions.ts';
import type { User, WorkspaceRef } from '../../core/accounts/types.ts';
import { workspacesOf } from '../../core/accounts/workspaces.ts';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { SESSION_COOKIE } from '../middleware/session.ts';
import type { AppEnv } from '../types.ts';

/** Who, in the session's active workspace, with which role. */
export interface Session {
  user: User;
  /** The raw session token (CSRF value, sign-out). */
  token: string;
  /** The double-submit value every form carries: the HMAC of the session. */
  csrf: string;
  workspace: WorkspaceRef;
  workspaces: WorkspaceRef[];
  /** Admin or owner of the operator workspace: admin tokens are theirs. */
  operator: boolean;
}

export type WebContext = Context<AppEnv>;

/** Per response: the CSP nonce and, when signed in, the session. */
export interface PageState {
  nonce: string;
  session: Session | undefined;
}

const states = new WeakMap<Request, PageState>();

/** One nonce per response, made on first use. */
export function pageState(c: WebContext): PageState {
  let s = states.get(c.req.raw);
  if (!s) states.set(c.req.raw, (s = { nonce: randomBytes(16).toString('base64'), session: undefined }));
  return s;
}

export const may = (s: Session, min: Role): boolean => atLeast(s.workspace.role, min);

/** Undefined without a live session. */
export async function loadSession(core: Core, services: Services, c: WebContext): Promise<Session | undefined> {
  const token = getCookie(c, SESSION_COOKIE);
  const found = await sessionOf(services.accounts, token);
  if (!found || !token) return undefined;
  const workspaces = await workspacesOf(core.db, found.user.id);
  const workspace = workspaces.find((w) => w.id === found.activeWorkspaceId) ?? workspaces.find((w) => w.own) ?? workspaces[0];
  if (!workspace) return undefined;
  const operator = workspaces.some((w) => w.operator && atLeast(w.role, 'admin')) && !!(await operatorOf(core.db, found.user.id));
  const session: Session = { user: found.user, token, csrf: csrfToken(core.auth.csrfKey, token), workspace, workspaces, operator };
  pageState(c).session = session;
  return session;
}

/** Anything but a same-site path (`//host`, `https:`) is `/`: no open redirect. */
export function safeNext(v: string | undefined | null): string {
  if (!v || !v.startsWith('/') || v.startsWith('//') || v.startsWith('/\\')) return '/';
  return v;
}
