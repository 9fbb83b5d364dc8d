// Shared pieces of the accounts integration tests: JSON requests, a tiny cookie jar, sign-up through
// the real HTTP surface, and invitations created through the domain service (their routes belong to
// another surface).
import assert from 'node:assert/strict';
import { SECRET_NAMES } from '../../core/kernel/config/index.ts';
import { createInvitation } from '../../core/invitations/service.ts';
import type { Role } from '../../core/accounts/roles.ts';
import type { Core } from '../../core/index.ts';
import type { App } from '../../daemon/app.ts';

export interface Cookie {
  value: string;
  attrs: string[];
}

/** Set-Cookie headers of a response by cookie name (attributes lower-cased, e.g. `httponly`, `samesite=lax`). */
export function setCookies(res: Response): Map<string, Cookie> {
  const out = new Map<string, Cookie>();
  for (const line of res.headers.getSetCookie()) {
    const [pair, ...attrs] = line.split(';').map((s) => s.trim());
    const eq = pair!.indexOf('=');
    out.set(pair!.slice(0, eq), { value: decodeURIComponent(pair!.slice(eq + 1)), attrs: attrs.map((a) => a.toLowerCase()) });
  }
  return out;
}

/** A signed-in client: the two cookies the service set, and headers that send them back. */
export interface Session {
  userId: string;
  token: string;
  csrf: string;
  /** Cookie header (and the CSRF header unless `csrf: false`), optionally acting in a workspace. */
  headers(opts?: { csrf?: boolean | string; workspace?: string }): Record<string, string>;
}

export function sessionFrom(res: Response, userId: string): Session {
  const jar = setCookies(res);
  const token = jar.get('service_session')?.value;
  const csrf = jar.get('service_csrf')?.value;
  assert.ok(token && csrf, 'response sets service_session and service_csrf');
  return {
    userId,
    token,
    csrf,
    headers(opts = {}) {
      const h: Record<string, string> = { cookie: `service_session=${token}; service_csrf=${csrf}` };
      if (opts.csrf !== false) h['x-csrf-token'] = typeof opts.csrf === 'string' ? opts.csrf : csrf;
      if (opts.workspace) h['x-workspace-id'] = opts.workspace;
      return h;
    },
  };
}

export const jsonInit = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

export interface AccountBody {
  user: { id: string; email: string; name: string };
  workspaces: { id: string; name: string; role: Role }[];
}

export interface SignUp {
  res: Response;
  body: AccountBody;
  session: Session;
}

/** Registers through POST /api/auth/register and expects 201. */
export async function signUp(app: App, input: { email: string; password?: string; name?: string; invitationToken?: string }): Promise<SignUp> {
  const res = await app.request('/api/auth/register', jsonInit('POST', { password: 'correct horse battery', ...input }));
  const text = await res.text();
  assert.equal(res.status, 201, text);
  const body = JSON.parse(text) as AccountBody;
  return { res, body, session: sessionFrom(res, body.user.id) };
}

/** Creates an invitation as an owner of `workspaceId`, straight through the domain service. */
export async function invite(core: Core, workspaceId: string, email: string, role: Role, byUserId: string | null = null) {
  return createInvitation(
    { db: core.db, clock: core.clock, tokenKey: core.auth.tokenKey, appOrigin: core.config.SERVICE_APP_ORIGIN },
    workspaceId,
    { userId: byUserId, role: 'owner' },
    { email, role },
  );
}

export async function userCount(core: Core): Promise<number> {
  const row = await core.db.one<{ n: number | string }>('SELECT COUNT(*) AS n FROM users');
  return Number(row!.n);
}

export async function errorOf(res: Response): Promise<{ code: string; message: string; field?: string }> {
  const body = (await res.json()) as { error: { code: string; message: string; field?: string } };
  assert.ok(body.error, 'error envelope');
  return body.error;
}

/** A production environment (NODE_ENV=production, HTTPS origins, seven distinct ≥32-byte secrets). */
export function productionEnv(): Record<string, string> {
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    SERVICE_APP_ORIGIN: 'https://svc.example.com',
    SERVICE_PREVIEW_ORIGIN: 'https://preview.example.com',
  };
  for (const [i, name] of SECRET_NAMES.entries()) {
    env[name] = `production-secret-${i}-${'s'.repeat(40)}`;
  }
  return env;
}
