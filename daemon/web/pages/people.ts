// Invitations (admins and owners) and members, under core/accounts/members.ts's rules.
import { changeRole, listMembers, removeMember } from '../../../core/accounts/members.ts';
import { ROLES, isRole, type Role } from '../../../core/accounts/roles.ts';
import { createInvitation, listInvitations, resendInvitation, revokeInvitation, type Actor } from '../../../core/invitations/service.ts';
import type { IssuedInvitation } from '../../../core/invitations/types.ts';
import { badRequest } from '../../../core/kernel/errors.ts';
import { startDelivery } from '../../routes/invitations.ts';
import { may, type Session, type WebContext } from '../context.ts';
import { button, errorsOf, Fields, form, redirectWith, type Errors } from '../form.ts';
import { badge, html, nothing, secretPanel, table, time } from '../html.ts';
import { requireRole, type Web } from '../router.ts';

/** Admins grant everything below owner, owners everything. */
const grantable = (s: Session): readonly Role[] => (s.workspace.role === 'owner' ? ROLES : ROLES.filter((r) => r !== 'owner'));

export function peoplePages(web: Web): void {
  const { core, services } = web;
  const deps = services.invitations;
  const actor = (s: Session): Actor => ({ userId: s.user.id, role: s.workspace.role });

  const invitationsPage = async (c: WebContext, s: Session, o: { issued?: IssuedInvitation; values?: Record<string, string>; errors?: Errors; status?: number } = {}) => {
    const list = await listInvitations(deps, s.workspace.id);
    const f = new Fields(o.values ?? { role: 'member' }, o.errors ?? {}, 'inv');
    return web.page(c, {
      title: 'Invitations',
      section: '/invitations',
      status: o.status ?? 200,
      body: html`${o.issued ? secretPanel('invite-link', `Sign-up link for ${o.issued.email}`, o.issued.signUpUrl, 'Send this link to them. It is shown only now; it works once, for this address, for seven days.') : nothing}
<h2>Invite someone</h2>${f.summary()}${form(s.csrf, '/invitations', html`
${f.input('Email', 'email', { type: 'email', required: true, maxlength: 320, autocomplete: 'off' })}
${f.select('Role', 'role', grantable(s))}
<button type="submit">Create invitation</button>`, { label: 'Invite someone' })}
<h2>Invitations of ${s.workspace.name}</h2>
${table('Invitations', ['Email', 'Role', 'Status', 'Delivery', 'Expires', 'Code', 'Actions'], list.map((i) => html`<tr><td>${i.email}</td><td>${i.role}</td><td>${badge(i.status)}</td><td>${badge(i.deliveryStatus)}${i.deliveryDetail ? html`<br><span class="hint">${i.deliveryDetail}</span>` : nothing}</td><td>${time(i.expiresAt)}</td><td><code>${i.tokenPreview}</code></td><td>${
  i.status === 'pending' || i.status === 'expired'
    ? html`${button(s.csrf, `/invitations/${i.id}/resend`, 'Resend', { title: `Resend the invitation of ${i.email}` })}${i.status === 'pending' ? button(s.csrf, `/invitations/${i.id}/revoke`, 'Revoke', { danger: true, title: `Revoke the invitation of ${i.email}` }) : nothing}`
    : nothing
}</td></tr>`), 'No invitation yet.')}`,
    });
  };

  web.get('/invitations', (c, s) => {
    requireRole(s, 'admin');
    return invitationsPage(c, s);
  });

  web.post('/invitations', async (c, s, f) => {
    requireRole(s, 'admin');
    try {
      const inv = await createInvitation(deps, s.workspace.id, actor(s), { email: f.get('email').slice(0, 320), role: f.get('role') });
      // Shown in this answer only: a reload does not show it again.
      return invitationsPage(c, s, { issued: startDelivery(services.invitationDelivery, inv, s.workspace.name), status: 201 });
    } catch (err) {
      const { status, errors } = errorsOf(err);
      return invitationsPage(c, s, { values: f.values(), errors, status });
    }
  });

  web.post('/invitations/:id/resend', async (c, s) => {
    requireRole(s, 'admin');
    const inv = await resendInvitation(deps, s.workspace.id, actor(s), c.req.param('id')!);
    return invitationsPage(c, s, { issued: startDelivery(services.invitationDelivery, inv, s.workspace.name) });
  });

  web.post('/invitations/:id/revoke', async (c, s) => {
    requireRole(s, 'admin');
    const inv = await revokeInvitation(deps, s.workspace.id, actor(s), c.req.param('id')!);
    return redirectWith(core, c, '/invitations', `Revoked the invitation of ${inv.email}: its link no longer works.`);
  });

  web.get('/members', async (c, s) => {
    const members = await listMembers(core.db, s.workspace.id);
    const admin = may(s, 'admin');
    const owners = members.filter((m) => m.role === 'owner').length;
    const manages = (role: Role) => admin && (s.workspace.role === 'owner' || role !== 'owner');
    return web.page(c, {
      title: 'Members',
      section: '/members',
      body: html`<p>Everyone in ${s.workspace.name}. Viewers read; members run agents and hold keys; admins and owners manage people and providers.</p>
${table('Members', ['Name', 'Email', 'Role', 'Joined', 'Actions'], members.map((m) => {
  const self = m.userId === s.user.id;
  const f = new Fields({ role: m.role }, {}, `m-${m.userId}`);
  return html`<tr><td>${m.name}${self ? ' (you)' : ''}</td><td>${m.email}</td><td>${
    manages(m.role) && !self
      ? form(s.csrf, `/members/${m.userId}/role`, html`${f.select(`Role of ${m.name}`, 'role', grantable(s), { hideLabel: true })}<button type="submit" class="secondary">Change role</button>`, { inline: true })
      : m.role
  }</td><td>${time(m.joinedAt)}</td><td>${
    self
      ? m.role === 'owner' && owners <= 1 ? nothing : button(s.csrf, `/members/${m.userId}/remove`, 'Leave workspace', { danger: true })
      : manages(m.role) ? button(s.csrf, `/members/${m.userId}/remove`, 'Remove', { danger: true, title: `Remove ${m.name}` }) : nothing
  }</td></tr>`;
}))}
${admin ? html`<p><a href="/invitations">Invite someone</a></p>` : nothing}`,
    });
  });

  web.post('/members/:userId/role', async (c, s, f) => {
    requireRole(s, 'admin');
    const role = f.get('role');
    if (!isRole(role)) throw badRequest('invalid_role', 'role must be one of viewer, member, admin, owner.', 'role');
    const userId = c.req.param('userId')!;
    await changeRole(core.db, s.workspace.id, s.workspace.role, userId, role, new Date(core.clock.now()).toISOString());
    core.auth.credentialCache.dropUser(userId);
    return redirectWith(core, c, '/members', `Changed the role to ${role}.`);
  });

  web.post('/members/:userId/remove', async (c, s) => {
    const userId = c.req.param('userId')!;
    await removeMember(core.db, s.workspace.id, { userId: s.user.id, role: s.workspace.role }, userId, new Date(core.clock.now()).toISOString());
    core.auth.credentialCache.dropUser(userId);
    if (userId === s.user.id) return redirectWith(core, c, '/', `You left ${s.workspace.name}.`);
    return redirectWith(core, c, '/members', 'Removed the member.');
  });
}
