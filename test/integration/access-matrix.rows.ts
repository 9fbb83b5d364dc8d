// The access matrix's rows (test/integration/access-matrix.test.ts): each route of the accounts,
// gateway, agents, runs and public surfaces × {anonymous, wrong credential, viewer, member, admin,
// owner, outsider} → the expected status. `h` gives the fixture's people and fresh targets; it is
// read only when a row runs, after the fixture is set up.
import type { Cast } from './people.ts';

export const WHO = ['anonymous', 'wrongCredential', 'viewer', 'member', 'admin', 'owner', 'outsider'] as const;
export type Who = (typeof WHO)[number];
export type Person = Exclude<Who, 'anonymous' | 'wrongCredential'>;

/**
 * How a route authenticates, which decides what "wrong credential" means for it:
 * session routes get a valid svc_pat_ Bearer instead of a cookie; Bearer routes and the webhook
 * get a valid session cookie instead of their credential; public routes take none.
 */
export type Surface = 'public' | 'session' | 'operator' | 'bearer-access' | 'bearer-member' | 'webhook';

export interface Prepared {
  path?: string;
  body?: unknown;
}
export interface Row {
  method: string;
  /** The route template as the app mounts it. */
  route: string;
  surface: Surface;
  /** A variant of the same route (a query), shown in the test name. */
  variant?: string;
  /** A fresh session per request (logout ends it; register and login replace it). */
  freshSession?: boolean;
  /** The concrete path and body for one caller; runs before each request, so targets are fresh. */
  prepare?: (who: Who) => Promise<Prepared>;
  /** Runs after each request (e.g. gives back the sessions "sign out everywhere" ended). */
  after?: (who: Who) => Promise<void>;
  /** anonymous, wrong credential, viewer, member, admin, owner, outsider. */
  expect: [number, number, number, number, number, number, number];
}

/** What the rows need from the fixture (getters: the values exist once `before` has run). */
export interface MatrixContext {
  readonly people: Cast;
  /** The operator workspace every /api/app row acts in. */
  readonly W: string;
  readonly accountInW: string;
  readonly upstream: { url: string };
  readonly limits: { requestsPerMinute: number; tokensPerMinute: null; tokensPerMonth: null };
  fresh(): string;
  next(): number;
  credential(kind: 'access' | 'member' | 'admin', p: Person): Promise<string>;
  invitation(): Promise<{ id: string; email: string; token: string }>;
  memberAgent(published?: boolean): Promise<string>;
  memberConversation(): Promise<string>;
  memberShare(): Promise<{ id: string; token: string }>;
  /** An app made in a run of the member (issue 16). */
  memberApp(): Promise<string>;
  memberWorker(): Promise<{ id: string; token: string }>;
  agentWebhookToken(): Promise<string>;
  sharedAgent(): Promise<string>;
  account(): Promise<{ id: string }>;
  viewerInW(): Promise<string>;
  /** A fresh second owner of W (so the cast's owner may act on them without being the last owner). */
  ownerInW(): Promise<string>;
  /** Writes the cast person's session row again (after a row that ended all their sessions). */
  restoreSession(p: Person): Promise<void>;
}

export function matrixRows(h: MatrixContext): Row[] {
  return [
    // Public entry points: any caller, credential or not, gets the same answer.
    {
      method: 'POST', route: '/api/auth/register', surface: 'public', freshSession: true,
      prepare: async () => {
        const inv = await h.invitation();
        return { body: { email: inv.email, password: 'correct horse battery', invitationToken: inv.token } };
      },
      expect: [201, 201, 201, 201, 201, 201, 201],
    },
    {
      method: 'POST', route: '/api/auth/login', surface: 'public', freshSession: true,
      prepare: async () => ({ body: { email: 'owner@example.test', password: 'correct horse battery' } }),
      expect: [200, 200, 200, 200, 200, 200, 200],
    },
    // The reset link's token is the only credential: a session changes nothing (a bad link is 403).
    {
      method: 'POST', route: '/api/auth/reset-password', surface: 'public',
      prepare: async () => ({ body: { token: 'svc_rst_notavalidtoken', newPassword: 'a brand new password' } }),
      expect: [403, 403, 403, 403, 403, 403, 403],
    },
    { method: 'GET', route: '/sign-up', surface: 'public', expect: [200, 200, 200, 200, 200, 200, 200] },
    { method: 'GET', route: '/sign-in', surface: 'public', expect: [200, 200, 200, 200, 200, 200, 200] },
    { method: 'GET', route: '/', surface: 'public', expect: [200, 200, 200, 200, 200, 200, 200] },
    // The workbench's forms take urlencoded bodies only (with a hidden CSRF value): JSON is a 415.
    { method: 'POST', route: '/sign-up', surface: 'public', expect: [415, 415, 415, 415, 415, 415, 415] },
    { method: 'POST', route: '/sign-in', surface: 'public', expect: [415, 415, 415, 415, 415, 415, 415] },
    // Session routes about the caller themselves: no workspace involved.
    { method: 'POST', route: '/api/auth/logout', surface: 'session', freshSession: true, expect: [401, 401, 204, 204, 204, 204, 204] },
    { method: 'GET', route: '/api/auth/session', surface: 'session', expect: [401, 401, 200, 200, 200, 200, 200] },
    // The caller's own session (issue 14): switch the active workspace (W: the outsider is no member),
    // change the password (a wrong current one: 400, so no session ends), sign out everywhere.
    {
      method: 'PATCH', route: '/api/auth/session', surface: 'session', freshSession: true,
      prepare: async () => ({ body: { workspaceId: h.W } }),
      expect: [401, 401, 200, 200, 200, 200, 403],
    },
    {
      method: 'POST', route: '/api/auth/password', surface: 'session', freshSession: true,
      prepare: async () => ({ body: { currentPassword: 'not the password', newPassword: 'another good password' } }),
      expect: [401, 401, 400, 400, 400, 400, 400],
    },
    {
      method: 'POST', route: '/api/auth/logout-all', surface: 'session', freshSession: true,
      after: async (who) => {
        if (who !== 'anonymous' && who !== 'wrongCredential') await h.restoreSession(who);
      },
      expect: [401, 401, 200, 200, 200, 200, 200],
    },
    // /api/app acts in W: the outsider is not a member there (403).
    { method: 'GET', route: '/api/app/workspaces', surface: 'session', expect: [401, 401, 200, 200, 200, 200, 403] },
    { method: 'GET', route: '/api/app/members', surface: 'session', expect: [401, 401, 200, 200, 200, 200, 403] },
    {
      method: 'PATCH', route: '/api/app/members/:userId', surface: 'session',
      prepare: async () => ({ path: `/api/app/members/${await h.viewerInW()}`, body: { role: 'member' } }),
      expect: [401, 401, 403, 403, 200, 200, 403],
    },
    {
      method: 'DELETE', route: '/api/app/members/:userId', surface: 'session',
      prepare: async () => ({ path: `/api/app/members/${await h.viewerInW()}` }),
      expect: [401, 401, 403, 403, 204, 204, 403],
    },
    // Nobody acts on a member of a higher role than their own (issue 12 item 7): an owner target.
    {
      method: 'PATCH', route: '/api/app/members/:userId', variant: ' (an owner)', surface: 'session',
      prepare: async () => ({ path: `/api/app/members/${await h.ownerInW()}`, body: { role: 'admin' } }),
      expect: [401, 401, 403, 403, 403, 200, 403],
    },
    {
      method: 'DELETE', route: '/api/app/members/:userId', variant: ' (an owner)', surface: 'session',
      prepare: async () => ({ path: `/api/app/members/${await h.ownerInW()}` }),
      expect: [401, 401, 403, 403, 403, 204, 403],
    },
    {
      method: 'POST', route: '/api/app/invitations', surface: 'session',
      prepare: async () => ({ body: { email: h.fresh(), role: 'member' } }),
      expect: [401, 401, 403, 403, 201, 201, 403],
    },
    { method: 'GET', route: '/api/app/invitations', surface: 'session', expect: [401, 401, 403, 403, 200, 200, 403] },
    {
      method: 'POST', route: '/api/app/invitations/:id/resend', surface: 'session',
      prepare: async () => ({ path: `/api/app/invitations/${(await h.invitation()).id}/resend` }),
      expect: [401, 401, 403, 403, 200, 200, 403],
    },
    {
      method: 'DELETE', route: '/api/app/invitations/:id', surface: 'session',
      prepare: async () => ({ path: `/api/app/invitations/${(await h.invitation()).id}` }),
      expect: [401, 401, 403, 403, 200, 200, 403],
    },
    {
      method: 'POST', route: '/api/app/access-tokens', surface: 'session',
      prepare: async () => ({ body: { name: 'matrix' } }),
      expect: [401, 401, 201, 201, 201, 201, 403],
    },
    { method: 'GET', route: '/api/app/access-tokens', surface: 'session', expect: [401, 401, 200, 200, 200, 200, 403] },
    {
      // Target: the member's own token. Everyone else's answer is 404 (own only).
      method: 'DELETE', route: '/api/app/access-tokens/:id', surface: 'session',
      prepare: async () => ({ path: `/api/app/access-tokens/${await h.credential('access', 'member')}` }),
      expect: [401, 401, 404, 200, 404, 404, 403],
    },
    {
      method: 'POST', route: '/api/app/keys', surface: 'session',
      prepare: async () => ({ body: { name: 'matrix', limits: { requestsPerMinute: 10 } } }),
      expect: [401, 401, 403, 201, 201, 201, 403],
    },
    { method: 'GET', route: '/api/app/keys', surface: 'session', expect: [401, 401, 403, 200, 200, 200, 403] },
    {
      method: 'GET', route: '/api/app/keys', variant: '?all=1', surface: 'session',
      prepare: async () => ({ path: '/api/app/keys?all=1' }),
      expect: [401, 401, 403, 403, 200, 200, 403],
    },
    {
      // Target: the member's key. Its holder or an admin+ revokes it; another viewer is refused by role.
      method: 'DELETE', route: '/api/app/keys/:id', surface: 'session',
      prepare: async () => ({ path: `/api/app/keys/${await h.credential('member', 'member')}` }),
      expect: [401, 401, 403, 200, 200, 200, 403],
    },
    {
      // The owner's key: an admin may not revoke it (a member does not see it: 404).
      method: 'DELETE', route: '/api/app/keys/:id', variant: " (the owner's)", surface: 'session',
      prepare: async () => ({ path: `/api/app/keys/${await h.credential('member', 'owner')}` }),
      expect: [401, 401, 403, 404, 403, 200, 403],
    },
    // Agents: members and above create; the member's private agent is a 404 to the viewer.
    { method: 'POST', route: '/api/app/agents', surface: 'session', prepare: async () => ({ body: { name: 'matrix', instructions: 'x' } }), expect: [401, 401, 403, 201, 201, 201, 403] },
    { method: 'GET', route: '/api/app/agents', surface: 'session', expect: [401, 401, 200, 200, 200, 200, 403] },
    ...([
      ['GET', '', undefined, 200],
      ['PATCH', '', { name: 'renamed' }, 200],
      ['DELETE', '', undefined, 204],
      ['POST', '/publish', undefined, 201],
      ['GET', '/versions', undefined, 200],
      ['GET', '/shares', undefined, 200],
      ['POST', '/shares', { workspace: true }, 200],
      ['DELETE', '/shares', { workspace: true }, 200],
    ] as const).map(([method, sub, body, ok]): Row => ({
      method, route: `/api/app/agents/:id${sub}`, surface: 'session',
      prepare: async () => ({ path: `/api/app/agents/${await h.memberAgent()}${sub}`, ...(body ? { body } : {}) }),
      expect: [401, 401, 404, ok, ok, ok, 403],
    })),
    {
      method: 'GET', route: '/api/app/agents/:id/versions/:version', surface: 'session',
      prepare: async () => ({ path: `/api/app/agents/${await h.memberAgent(true)}/versions/1` }),
      expect: [401, 401, 404, 200, 200, 200, 403],
    },
    // Operators only: admins and owners of W, the operator workspace.
    {
      method: 'POST', route: '/api/app/admin-tokens', surface: 'session',
      prepare: async () => ({ body: { name: 'matrix', scopes: ['usage:read'] } }),
      expect: [401, 401, 403, 403, 201, 201, 403],
    },
    { method: 'GET', route: '/api/app/admin-tokens', surface: 'session', expect: [401, 401, 403, 403, 200, 200, 403] },
    {
      // Operators revoke one another's admin tokens, but not one of a higher role: the admin's token here.
      method: 'DELETE', route: '/api/app/admin-tokens/:id', surface: 'session',
      prepare: async () => ({ path: `/api/app/admin-tokens/${await h.credential('admin', 'admin')}` }),
      expect: [401, 401, 403, 403, 200, 200, 403],
    },
    {
      method: 'DELETE', route: '/api/app/admin-tokens/:id', variant: " (the owner's)", surface: 'session',
      prepare: async () => ({ path: `/api/app/admin-tokens/${await h.credential('admin', 'owner')}` }),
      expect: [401, 401, 403, 403, 403, 200, 403],
    },
    // Operator session or svc_admin_ token (variants below); a svc_pat_ is the wrong credential.
    { method: 'GET', route: '/api/admin/metrics', surface: 'operator', expect: [401, 401, 403, 403, 200, 200, 403] },
    // Shared-secret webhook: no session of anyone is its credential.
    {
      method: 'POST', route: '/api/public/webhooks/invitation-email', surface: 'webhook',
      prepare: async () => ({ body: { invitationId: (await h.invitation()).id, status: 'delivered' } }),
      expect: [401, 401, 401, 401, 401, 401, 401],
    },
    // Conversations and share links (issue 5): the caller's own only; anyone else's is a 404.
    { method: 'GET', route: '/api/app/conversations', surface: 'session', expect: [401, 401, 200, 200, 200, 200, 403] },
    {
      method: 'GET', route: '/api/app/conversations/:id', surface: 'session',
      prepare: async () => ({ path: `/api/app/conversations/${await h.memberConversation()}` }),
      expect: [401, 401, 404, 200, 404, 404, 403],
    },
    {
      method: 'POST', route: '/api/app/shares', surface: 'session',
      prepare: async () => ({ body: { kind: 'conversation', id: await h.memberConversation() } }),
      expect: [401, 401, 404, 201, 404, 404, 403],
    },
    { method: 'GET', route: '/api/app/shares', surface: 'session', expect: [401, 401, 200, 200, 200, 200, 403] },
    {
      method: 'DELETE', route: '/api/app/shares/:id', surface: 'session',
      prepare: async () => ({ path: `/api/app/shares/${(await h.memberShare()).id}` }),
      expect: [401, 401, 404, 200, 404, 404, 403],
    },
    // Generated apps (issue 16): a preview link for whoever may read the run (its owner); others 404.
    {
      method: 'POST', route: '/api/app/apps/:appId/preview-links', surface: 'session',
      prepare: async () => ({ path: `/api/app/apps/${await h.memberApp()}/preview-links` }),
      expect: [401, 401, 404, 201, 404, 404, 403],
    },
    // Public: the path token is the only credential; activation takes none (docs/public-endpoints.md).
    {
      method: 'GET', route: '/api/public/share/:token', surface: 'public',
      prepare: async () => ({ path: `/api/public/share/${(await h.memberShare()).token}` }),
      expect: [200, 200, 200, 200, 200, 200, 200],
    },
    { method: 'GET', route: '/api/activation', surface: 'public', expect: [200, 200, 200, 200, 200, 200, 200] },
    {
      method: 'GET', route: '/api/activation/:workspaceId', surface: 'public',
      prepare: async () => ({ path: `/api/activation/${h.W}` }),
      expect: [200, 200, 200, 200, 200, 200, 200],
    },
    // The API reference (issue 17): its shape only, for anyone.
    { method: 'GET', route: '/api/openapi.json', surface: 'public', expect: [200, 200, 200, 200, 200, 200, 200] },
    { method: 'GET', route: '/api/docs', surface: 'public', expect: [200, 200, 200, 200, 200, 200, 200] },
    // Gateway settings (issue 4): everyone in W reads; admins and owners write.
    { method: 'GET', route: '/api/app/provider-accounts', surface: 'session', expect: [401, 401, 200, 200, 200, 200, 403] },
    {
      method: 'GET', route: '/api/app/provider-accounts/:id', surface: 'session',
      prepare: async () => ({ path: `/api/app/provider-accounts/${h.accountInW}` }),
      expect: [401, 401, 200, 200, 200, 200, 403],
    },
    {
      method: 'POST', route: '/api/app/provider-accounts', surface: 'session',
      prepare: async () => ({ body: { provider: 'openai-compatible', name: 'matrix', slug: `p${h.next()}`, baseUrl: h.upstream.url } }),
      expect: [401, 401, 403, 403, 201, 201, 403],
    },
    {
      method: 'PATCH', route: '/api/app/provider-accounts/:id', surface: 'session',
      prepare: async () => ({ path: `/api/app/provider-accounts/${(await h.account()).id}`, body: { name: 'renamed' } }),
      expect: [401, 401, 403, 403, 200, 200, 403],
    },
    {
      method: 'POST', route: '/api/app/provider-accounts/:id/test', surface: 'session',
      prepare: async () => ({ path: `/api/app/provider-accounts/${h.accountInW}/test` }),
      expect: [401, 401, 403, 403, 200, 200, 403],
    },
    {
      method: 'DELETE', route: '/api/app/provider-accounts/:id', surface: 'session',
      prepare: async () => ({ path: `/api/app/provider-accounts/${(await h.account()).id}` }),
      expect: [401, 401, 403, 403, 204, 204, 403],
    },
    { method: 'GET', route: '/api/app/limits', surface: 'session', expect: [401, 401, 200, 200, 200, 200, 403] },
    {
      method: 'PUT', route: '/api/app/limits', surface: 'session',
      prepare: async () => ({ body: h.limits }),
      expect: [401, 401, 403, 403, 200, 200, 403],
    },
    {
      method: 'GET', route: '/api/app/limits/members/:userId', surface: 'session',
      prepare: async () => ({ path: `/api/app/limits/members/${h.people.member.userId}` }),
      expect: [401, 401, 200, 200, 200, 200, 403],
    },
    {
      method: 'PUT', route: '/api/app/limits/members/:userId', surface: 'session',
      prepare: async () => ({ path: `/api/app/limits/members/${h.people.member.userId}`, body: h.limits }),
      expect: [401, 401, 403, 403, 200, 200, 403],
    },
    {
      method: 'PUT', route: '/api/app/limits/members/:userId', variant: " (the owner's)", surface: 'session',
      prepare: async () => ({ path: `/api/app/limits/members/${h.people.owner.userId}`, body: h.limits }),
      expect: [401, 401, 403, 403, 403, 200, 403],
    },
    { method: 'GET', route: '/api/app/conduit', surface: 'session', expect: [401, 401, 200, 200, 200, 200, 403] },
    {
      method: 'PUT', route: '/api/app/conduit', surface: 'session',
      prepare: async () => ({ body: { families: { code: ['fake/*'] } } }),
      expect: [401, 401, 403, 403, 200, 200, 403],
    },
    // The gateway (Bearer member key only). A viewer holds no key (their access token → 401); the
    // outsider's key is for their own workspace, where W's models do not exist (404).
    { method: 'GET', route: '/api/v1/models', surface: 'bearer-member', expect: [401, 401, 401, 200, 200, 200, 200] },
    {
      method: 'GET', route: '/api/v1/models/*', surface: 'bearer-member',
      prepare: async () => ({ path: `/api/v1/models/gw/gpt-test` }),
      expect: [401, 401, 401, 200, 200, 200, 404],
    },
    {
      method: 'POST', route: '/api/v1/chat/completions', surface: 'bearer-member',
      prepare: async () => ({ body: { model: 'gw/gpt-test', messages: [{ role: 'user', content: 'hi' }] } }),
      expect: [401, 401, 401, 200, 200, 200, 404],
    },
    {
      method: 'POST', route: '/api/v1/responses', surface: 'bearer-member',
      prepare: async () => ({ body: { model: 'gw/gpt-test', input: 'hi' } }),
      expect: [401, 401, 401, 200, 200, 200, 404],
    },
    {
      method: 'POST', route: '/api/v1/embeddings', surface: 'bearer-member',
      prepare: async () => ({ body: { model: 'gw/text-embed', input: 'hi' } }),
      expect: [401, 401, 401, 200, 200, 200, 404],
    },
    {
      method: 'POST', route: '/api/v1/router', surface: 'bearer-member',
      prepare: async () => ({ body: { model: 'gw/gpt-test', messages: [{ role: 'user', content: 'hi' }] } }),
      expect: [401, 401, 401, 200, 200, 200, 404],
    },
    { method: 'GET', route: '/api/v1/quota', surface: 'bearer-member', expect: [401, 401, 401, 200, 200, 200, 200] },
    { method: 'GET', route: '/api/v1/usage', surface: 'bearer-member', expect: [401, 401, 401, 200, 200, 200, 200] },
    // Workers (issue 6): members and above create (on an agent they can run: here one shared with
    // the workspace); a Worker is its owner's and admins'/owners' — anyone else gets 404.
    {
      method: 'POST', route: '/api/app/workers', surface: 'session',
      prepare: async () => ({ body: { name: 'matrix', agentId: await h.sharedAgent(), inputTemplate: '{{body}}' } }),
      expect: [401, 401, 403, 201, 201, 201, 403],
    },
    { method: 'GET', route: '/api/app/workers', surface: 'session', expect: [401, 401, 200, 200, 200, 200, 403] },
    ...([
      ['GET', '', undefined, 200],
      ['PATCH', '', { name: 'renamed' }, 200],
      ['DELETE', '', undefined, 204],
      ['POST', '/rotate-webhook', undefined, 200],
    ] as const).map(([method, sub, body, ok]): Row => ({
      method, route: `/api/app/workers/:id${sub}`, surface: 'session',
      prepare: async () => ({ path: `/api/app/workers/${(await h.memberWorker()).id}${sub}`, ...(body ? { body } : {}) }),
      expect: [401, 401, 404, ok, ok, ok, 403],
    })),
    ...([['POST', 201], ['DELETE', 204]] as const).map(([method, ok]): Row => ({
      method, route: '/api/app/agents/:id/webhook-token', surface: 'session',
      prepare: async () => ({ path: `/api/app/agents/${await h.memberAgent(true)}/webhook-token` }),
      expect: [401, 401, 404, ok, ok, ok, 403],
    })),
    // Webhook triggers: the path ref/token is the only credential; every caller gets the same 202.
    {
      method: 'POST', route: '/api/public/webhooks/workers/:webhookRef', surface: 'public',
      prepare: async () => ({ path: `/api/public/webhooks/workers/${(await h.memberWorker()).token}`, body: { event: 'matrix' } }),
      expect: [202, 202, 202, 202, 202, 202, 202],
    },
    {
      method: 'POST', route: '/api/public/webhooks/agents/:token', surface: 'public',
      prepare: async () => ({ path: `/api/public/webhooks/agents/${await h.agentWebhookToken()}`, body: { event: 'matrix' } }),
      expect: [202, 202, 202, 202, 202, 202, 202],
    },
    // Bearer-only routes (test-mounted until the run API and /api/v1 land): a cookie never works.
    { method: 'GET', route: '/test/bearer/access', surface: 'bearer-access', expect: [401, 401, 200, 200, 200, 200, 200] },
    { method: 'GET', route: '/test/bearer/member', surface: 'bearer-member', expect: [401, 401, 401, 200, 200, 200, 200] },
  ];
}
