// Access tokens, member keys and admin tokens: each shown once, at creation.
import { atLeast } from '../../../core/accounts/roles.ts';
import { listMembers } from '../../../core/accounts/members.ts';
import { getCredential, issueCredential, listCredentials, revokeCredential } from '../../../core/credentials/service.ts';
import { ADMIN_SCOPES, type CredentialKind, type CredentialView } from '../../../core/credentials/types.ts';
import { AppError, badRequest, notFound } from '../../../core/kernel/errors.ts';
import { may, type Session, type WebContext } from '../context.ts';
import { button, errorsOf, Fields, form, redirectWith, type Errors, type Form } from '../form.ts';
import { badge, html, nothing, secretPanel, table, time } from '../html.ts';
import { requireRole, type Web } from '../router.ts';

const KINDS: Record<CredentialKind, { path: string; title: string; noun: string }> = {
  access: { path: 'access', title: 'Access tokens', noun: 'access token' },
  member: { path: 'keys', title: 'Gateway keys', noun: 'key' },
  admin: { path: 'admin', title: 'Admin tokens', noun: 'admin token' },
};

const statusOf = (v: CredentialView, now: number) => (v.revokedAt ? 'revoked' : v.expiresAt !== null && Date.parse(v.expiresAt) <= now ? 'expired' : 'active');

interface Shown {
  kind: CredentialKind;
  token: string;
  name: string;
}

export function tokenPages(web: Web): void {
  const { core } = web;
  const deps = web.services.credentials;
  const now = () => core.clock.now();

  const page = async (c: WebContext, s: Session, o: { shown?: Shown; errors?: Partial<Record<CredentialKind, Errors>>; values?: Partial<Record<CredentialKind, Record<string, string>>>; status?: number } = {}) => {
    const member = may(s, 'member');
    const adminInWs = may(s, 'admin');
    const [access, keys, admins, people] = await Promise.all([
      listCredentials(deps, 'access', { userId: s.user.id }),
      member ? listCredentials(deps, 'member', adminInWs ? { workspaceId: s.workspace.id } : { workspaceId: s.workspace.id, userId: s.user.id }) : [],
      s.operator ? listCredentials(deps, 'admin', {}) : [],
      adminInWs ? listMembers(core.db, s.workspace.id) : [],
    ]);
    const owner = new Map(people.map((p) => [p.userId, p.name]));
    const rows = (kind: CredentialKind, list: CredentialView[], who: boolean) =>
      table(KINDS[kind].title, ['Name', ...(who ? ['Holder'] : []), 'Token', 'Status', 'Created', 'Last used', 'Expires', ''], list.map((v) => {
        const st = statusOf(v, now());
        return html`<tr><td>${v.name}</td>${who ? html`<td>${owner.get(v.userId) ?? v.userId}</td>` : nothing}<td><code>${v.preview}</code></td><td>${badge(st)}</td><td>${time(v.createdAt)}</td><td>${time(v.lastUsedAt)}</td><td>${time(v.expiresAt)}</td><td>${st === 'active' ? button(s.csrf, `/tokens/${KINDS[kind].path}/${v.id}/revoke`, 'Revoke', { danger: true, title: `Revoke ${v.name}` }) : nothing}</td></tr>`;
      }), `No ${KINDS[kind].noun} yet.`);
    const fields = (kind: CredentialKind) => new Fields(o.values?.[kind] ?? {}, o.errors?.[kind] ?? {}, kind);
    const common = (f: Fields) => html`${f.input('Name', 'name', { required: true, maxlength: 200, placeholder: 'laptop script' })}${f.input('Expires on', 'expiresOn', { type: 'date', hint: 'The token stops working at the end of that day (UTC). Empty: never.' })}`;
    const ak = fields('access');
    const mk = fields('member');
    const ad = fields('admin');
    return web.page(c, {
      title: 'Keys and tokens',
      section: '/tokens',
      status: o.status ?? 200,
      body: html`${o.shown ? secretPanel('new-token', `Your new ${KINDS[o.shown.kind].noun} “${o.shown.name}”`, o.shown.token, 'Copy it now: it is shown only once. Only a short preview is kept.') : nothing}
${member ? html`<section aria-labelledby="keys-title"><h2 id="keys-title">Gateway keys</h2>
<p>For the OpenAI-compatible gateway at <code>${core.config.SERVICE_APP_ORIGIN}/api/v1</code>, acting as you in ${s.workspace.name}.</p>
${rows('member', keys, adminInWs)}
<h3>New key</h3>${mk.summary()}${form(s.csrf, '/tokens/keys', html`${common(mk)}
<details><summary>Limits</summary>
${mk.input('Requests per minute', 'requestsPerMinute', { type: 'number', min: 1, step: '1' })}
${mk.input('Tokens per minute', 'tokensPerMinute', { type: 'number', min: 1, step: '1' })}
${mk.input('Tokens per month', 'tokensPerMonth', { type: 'number', min: 1, step: '1' })}
</details><button type="submit">Create key</button>`, { label: 'New gateway key' })}</section>` : nothing}
<section aria-labelledby="access-title"><h2 id="access-title">Access tokens</h2>
<p>For the run API (<code>/api/agents/…/runs</code>), acting as you in every workspace you belong to.</p>
${rows('access', access, false)}
<h3>New access token</h3>${ak.summary()}${form(s.csrf, '/tokens/access', html`${common(ak)}<button type="submit">Create access token</button>`, { label: 'New access token' })}</section>
${s.operator ? html`<section aria-labelledby="admin-title"><h2 id="admin-title">Admin tokens</h2>
<p>For operators' scripts: metrics and administration, with the scopes you choose.</p>
${rows('admin', admins, false)}
<h3>New admin token</h3>${ad.summary()}${form(s.csrf, '/tokens/admin', html`${common(ad)}<fieldset><legend>Scopes</legend>${ADMIN_SCOPES.map((sc) => ad.checkbox(sc, `scope.${sc}`, { checked: sc === 'usage:read' }))}</fieldset><button type="submit">Create admin token</button>`, { label: 'New admin token' })}</section>` : nothing}`,
    });
  };

  const expiry = (f: Form): string | null => {
    const d = f.opt('expiresOn');
    if (!d) return null;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(d) || Number.isNaN(Date.parse(`${d}T23:59:59Z`))) throw badRequest('invalid_request', 'Give the expiry as a date.', 'expiresOn');
    const at = `${d}T23:59:59.000Z`;
    if (Date.parse(at) <= now()) throw badRequest('invalid_request', 'The expiry date is in the past.', 'expiresOn');
    return at;
  };
  const name = (f: Form) => {
    const n = f.get('name').trim();
    if (!n || n.length > 200) throw badRequest('invalid_request', 'Give it a name (at most 200 characters).', 'name');
    return n;
  };
  const positive = (f: Form, field: string) => {
    const v = f.opt(field);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw badRequest('invalid_request', 'A whole number above 0.', field);
    return n;
  };

  const create = (kind: CredentialKind, issue: (s: Session, f: Form) => Promise<CredentialView & { token: string }>) =>
    web.post(`/tokens/${KINDS[kind].path}`, async (c, s, f) => {
      try {
        const v = await issue(s, f);
        // In this answer only: a reload does not show it again.
        return page(c, s, { shown: { kind, token: v.token, name: v.name }, status: 201 });
      } catch (err) {
        const { status, errors } = errorsOf(err);
        return page(c, s, { errors: { [kind]: errors }, values: { [kind]: f.values() }, status });
      }
    });

  web.get('/tokens', (c, s) => page(c, s));

  create('access', async (s, f) => issueCredential(deps, { kind: 'access', userId: s.user.id, workspaceId: null, name: name(f), expiresAt: expiry(f) }));

  create('member', async (s, f) => {
    requireRole(s, 'member');
    const limits = Object.fromEntries(
      (['requestsPerMinute', 'tokensPerMinute', 'tokensPerMonth'] as const).map((k) => [k, positive(f, k)]).filter(([, v]) => v !== undefined),
    );
    return issueCredential(deps, { kind: 'member', userId: s.user.id, workspaceId: s.workspace.id, name: name(f), limits, expiresAt: expiry(f) });
  });

  create('admin', async (s, f) => {
    const ws = s.workspaces.find((w) => w.operator && atLeast(w.role, 'admin'));
    if (!s.operator || !ws) throw new AppError('not_operator', 'Admin tokens are for operators: admins and owners of the operator workspace.', { status: 400 });
    const scopes = ADMIN_SCOPES.filter((sc) => f.has(`scope.${sc}`));
    if (scopes.length === 0) throw badRequest('invalid_request', 'Pick at least one scope.', 'scope.usage:read');
    return issueCredential(deps, { kind: 'admin', userId: s.user.id, workspaceId: ws.id, name: name(f), scopes, expiresAt: expiry(f) });
  });

  // The API's rules: anything the caller may not revoke is a 404.
  web.post('/tokens/:kind/:id/revoke', async (c, s) => {
    const kind = (Object.keys(KINDS) as CredentialKind[]).find((k) => KINDS[k].path === c.req.param('kind'));
    const v = await getCredential(deps, c.req.param('id')!);
    const allowed = (x: CredentialView): boolean =>
      x.kind === 'access' ? x.userId === s.user.id : x.kind === 'member' ? x.workspaceId === s.workspace.id && (x.userId === s.user.id || may(s, 'admin')) : s.operator;
    if (!kind || !v || v.kind !== kind || !allowed(v)) throw notFound(kind ? KINDS[kind].noun.replace(/^./, (ch) => ch.toUpperCase()) : 'Token');
    await revokeCredential(deps, v.id);
    return redirectWith(core, c, '/tokens', `Revoked ${v.name}: it no longer works.`);
  });
}

