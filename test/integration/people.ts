// A cast for credential, metrics and access-matrix tests, made through the domain layer (not the
// auth routes) so these tests depend only on what they test: the operator workspace's owner, an
// admin, a member and a viewer of it, and an outsider who owns only a workspace of their own.
import { register } from '../../core/accounts/register.ts';
import type { Role } from '../../core/accounts/roles.ts';
import { createSession } from '../../core/accounts/sessions.ts';
import { addMember } from '../../core/accounts/workspaces.ts';
import type { Core } from '../../core/index.ts';
import { accountsDeps } from '../../core/services.ts';

export interface Person {
  userId: string;
  /** The workspace this person owns (their own). */
  ownWorkspace: string;
  token: string;
  csrf: string;
  /** Cookie + CSRF headers; `workspace` sets x-workspace-id; `csrf: false` or a string to test CSRF. */
  headers(opts?: { csrf?: boolean | string; workspace?: string }): Record<string, string>;
}

export interface Cast {
  /** The operator workspace (the owner's own). */
  workspace: string;
  owner: Person;
  admin: Person;
  member: Person;
  viewer: Person;
  outsider: Person;
}

async function person(core: Core, name: string): Promise<Person> {
  const deps = { ...accountsDeps(core), registrationMode: 'open' };
  const account = await register(deps, { email: `${name}@example.test`, password: 'correct horse battery', name });
  const s = await createSession(deps, account.user.id);
  return {
    userId: account.user.id,
    ownWorkspace: account.workspaces[0]!.id,
    token: s.token,
    csrf: s.csrf,
    headers(opts = {}) {
      const h: Record<string, string> = { cookie: `service_session=${s.token}; service_csrf=${s.csrf}` };
      if (opts.csrf !== false) h['x-csrf-token'] = typeof opts.csrf === 'string' ? opts.csrf : s.csrf;
      if (opts.workspace) h['x-workspace-id'] = opts.workspace;
      return h;
    },
  };
}

export async function cast(core: Core): Promise<Cast> {
  const owner = await person(core, 'owner'); // first account: owns the operator workspace
  const ws = owner.ownWorkspace;
  const joined = async (name: string, role: Role) => {
    const p = await person(core, name);
    await addMember(core.db, ws, p.userId, role, new Date(core.clock.now()).toISOString());
    return p;
  };
  return {
    workspace: ws,
    owner,
    admin: await joined('admin', 'admin'),
    member: await joined('member', 'member'),
    viewer: await joined('viewer', 'viewer'),
    outsider: await person(core, 'outsider'),
  };
}

export const json = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

export const bearer = (token: string, headers: Record<string, string> = {}): RequestInit => ({ headers: { authorization: `Bearer ${token}`, ...headers } });
