// Viewers read; the owner or an admin edits; a run needs member.
import { canManage, type Caller } from '../../../core/agents/access.ts';
import { checkVersionTarget, createAgent, deleteAgent, getAgent, listAgents, listVersions, publishAgent, shareAgent, sharesOf, unshareAgent, updateAgent, type AgentDeps } from '../../../core/agents/service.ts';
import type { Agent } from '../../../core/agents/types.ts';
import { listMembers } from '../../../core/accounts/members.ts';
import { listAccounts } from '../../../core/provider-accounts/service.ts';
import { startQueuedRun } from '../../../core/runs/service.ts';
import { badRequest } from '../../../core/kernel/errors.ts';
import { may, type Session, type WebContext } from '../context.ts';
import { button, errorsOf, Fields, form, redirectWith, type Errors } from '../form.ts';
import { badge, cut, facts, html, nothing, table, time } from '../html.ts';
import { requireRole, type Web } from '../router.ts';
import { agentFields, agentInput, agentValues, formFieldOf } from './agent-form.ts';

const caller = (s: Session): Caller => ({ userId: s.user.id, workspaceId: s.workspace.id, role: s.workspace.role });

export function agentPages(web: Web): void {
  const { core, services } = web;
  const deps = (): AgentDeps => services.agents;
  const choices = async (s: Session) => {
    const [accounts, models] = await Promise.all([listAccounts(services.providerAccounts, s.workspace.id), services.gateway.catalogue.ids(s.workspace.id).catch(() => [] as readonly string[])]);
    return { accounts: accounts.filter((a) => a.enabled), models };
  };

  web.get('/agents', async (c, s) => {
    const agents = await listAgents(deps(), caller(s), { all: true });
    return web.page(c, {
      title: 'Agents',
      section: '/agents',
      body: html`${may(s, 'member') ? html`<div class="actions"><a class="button" href="/agents/new">New agent</a></div>` : nothing}
${table('Agents', ['Name', 'Model', 'Version', 'Shared', 'Updated'], agents.map((a) => html`<tr><td><a href="/agents/${a.id}">${a.name}</a></td><td>${a.model ? html`<code>${a.model}</code>` : html`<span class="muted">none</span>`}</td><td>${a.latestVersion ? `v${a.latestVersion}` : badge('draft')}</td><td>${a.sharedWithWorkspace ? 'workspace' : a.ownerUserId === s.user.id ? 'private' : 'with you'}</td><td>${time(a.updatedAt)}</td></tr>`), may(s, 'member') ? 'No agent yet: create one.' : 'No agent is shared with you yet.')}`,
    });
  });

  const newPage = async (c: WebContext, s: Session, values: Record<string, string> = {}, errors: Errors = {}, status = 200) => {
    const { accounts, models } = await choices(s);
    const f = new Fields(values, errors, 'agent');
    return web.page(c, {
      title: 'New agent',
      section: '/agents',
      status,
      body: html`${f.summary()}${form(s.csrf, '/agents', html`${agentFields(f, accounts, models)}<button type="submit">Create the draft</button>`, { label: 'New agent' })}`,
    });
  };

  web.get('/agents/new', (c, s) => {
    requireRole(s, 'member');
    return newPage(c, s, { 'tool.http_request.approval': 'always' });
  });

  web.post('/agents', async (c, s, f) => {
    requireRole(s, 'member');
    const { accounts } = await choices(s);
    let types: string[] = [];
    try {
      const { toolTypes, ...input } = agentInput(f, accounts);
      types = toolTypes;
      const a = await createAgent(deps(), caller(s), input);
      return redirectWith(core, c, `/agents/${a.id}`, `Created the draft of ${a.name}. Publish it to run it.`);
    } catch (err) {
      const { status, errors } = errorsOf(err);
      return newPage(c, s, f.values(), formFieldOf(errors, types), status);
    }
  });

  const detail = async (c: WebContext, s: Session, a: Agent, o: { values?: Record<string, string>; errors?: Errors; runErrors?: Errors; runValues?: Record<string, string>; status?: number } = {}) => {
    const manage = canManage(caller(s), a);
    const [versions, shares, members, { accounts, models }] = await Promise.all([
      listVersions(deps(), caller(s), a.id),
      manage ? sharesOf(deps(), caller(s), a.id) : undefined,
      manage ? listMembers(core.db, s.workspace.id) : [],
      manage ? choices(s) : { accounts: [], models: [] as readonly string[] },
    ]);
    const nameOf = new Map(members.map((m) => [m.userId, `${m.name} <${m.email}>`]));
    const others = members.filter((m) => m.userId !== a.ownerUserId && !shares?.userIds.includes(m.userId));
    const f = new Fields(o.values ?? agentValues(a), o.errors ?? {}, 'agent');
    const r = new Fields(o.runValues ?? {}, o.runErrors ?? {}, 'run');
    const published = a.latestVersion > 0;
    return web.page(c, {
      title: a.name,
      section: '/agents',
      status: o.status ?? 200,
      body: html`${facts([
        ['Status', published ? html`published, version ${a.latestVersion}` : badge('draft')],
        ['Model', a.model ? html`<code>${a.model}</code>` : null],
        ['Tools', a.tools.length ? html`${a.tools.map((t, i) => html`${i ? ', ' : ''}<code>${t.name}</code> (${t.approval === 'always' ? 'asks first' : 'no approval'})`)}` : 'none'],
        ['Shared with', a.sharedWithWorkspace ? 'the whole workspace' : shares?.userIds.length ? shares.userIds.map((u) => nameOf.get(u) ?? u).join(', ') : 'nobody else'],
      ])}
${published && may(s, 'member')
  ? html`<h2 id="run">Start a run</h2>${r.summary()}${form(s.csrf, `/agents/${a.id}/runs`, html`${r.textarea('Input', 'inputText', { required: true, rows: 3, maxlength: 100_000 })}${r.checkbox('Keep it as a conversation', 'conversation')}<button type="submit">Run</button>`, { label: 'Start a run' })}
<p><a href="/runs?agent=${a.id}">Runs of this agent</a></p>`
  : published ? nothing : html`<p class="muted">Publish the draft to run it.</p>`}
${manage ? html`<div class="actions">${button(s.csrf, `/agents/${a.id}/publish`, published ? 'Publish the draft as a new version' : 'Publish')}${button(s.csrf, `/agents/${a.id}/delete`, 'Delete agent', { danger: true })}</div>` : nothing}
${manage ? html`<h2>Edit the draft</h2>${f.summary()}${form(s.csrf, `/agents/${a.id}`, html`${agentFields(f, accounts, models)}<button type="submit">Save the draft</button>`, { label: 'Edit the draft' })}` : nothing}
${manage ? html`<h2>Sharing</h2>
<div class="actions">${a.sharedWithWorkspace ? button(s.csrf, `/agents/${a.id}/unshare`, 'Stop sharing with the workspace', { name: 'workspace', value: '1' }) : button(s.csrf, `/agents/${a.id}/share`, 'Share with the whole workspace', { name: 'workspace', value: '1' })}</div>
${shares?.userIds.length ? html`<ul>${shares.userIds.map((u) => html`<li>${nameOf.get(u) ?? u} ${button(s.csrf, `/agents/${a.id}/unshare`, 'Remove', { name: 'userId', value: u, title: `Stop sharing with ${nameOf.get(u) ?? u}` })}</li>`)}</ul>` : nothing}
${others.length ? form(s.csrf, `/agents/${a.id}/share`, html`${new Fields({}, {}, 'share').select('Share with a member', 'userId', others.map((m) => ({ value: m.userId, label: `${m.name} <${m.email}> (${m.role})` })))}<button type="submit">Share</button>`, { label: 'Share with a member' }) : html`<p class="muted">No other member to share with yet.</p>`}` : nothing}
<h2>Versions</h2>
${table('Published versions', ['Version', 'Model', 'Tools', 'Published'], versions.map((v) => html`<tr><td>v${v.version}</td><td><code>${v.model ?? ''}</code></td><td>${v.tools.map((t) => `${t.name} (${t.approval})`).join(', ') || 'none'}</td><td>${time(v.publishedAt)}</td></tr>`), 'Not published yet.')}
<h2>Instructions</h2><pre>${cut(a.instructions, 4000) || '—'}</pre>`,
    });
  };

  web.get('/agents/:id', async (c, s) => detail(c, s, await getAgent(deps(), caller(s), c.req.param('id')!)));

  web.post('/agents/:id', async (c, s, f) => {
    const a = await getAgent(deps(), caller(s), c.req.param('id')!);
    let types: string[] = [];
    try {
      const { accounts } = await choices(s);
      const { toolTypes, ...input } = agentInput(f, accounts);
      types = toolTypes;
      await updateAgent(deps(), caller(s), a.id, input);
      return redirectWith(core, c, `/agents/${a.id}`, 'Saved the draft. Publish it to make it the version runs use.');
    } catch (err) {
      const { status, errors } = errorsOf(err);
      return detail(c, s, a, { values: f.values(), errors: formFieldOf(errors, types), status });
    }
  });

  web.post('/agents/:id/publish', async (c, s) => {
    const a = await getAgent(deps(), caller(s), c.req.param('id')!);
    try {
      const v = await publishAgent(deps(), caller(s), a.id, async (draft) => {
        await checkVersionTarget(services.gateway, draft);
      });
      return redirectWith(core, c, `/agents/${a.id}`, `Published version ${v.version}.`);
    } catch (err) {
      const { status, errors } = errorsOf(err);
      return detail(c, s, a, { errors, status });
    }
  });

  web.post('/agents/:id/delete', async (c, s) => {
    const a = await getAgent(deps(), caller(s), c.req.param('id')!);
    await deleteAgent(deps(), caller(s), a.id);
    return redirectWith(core, c, '/agents', `Deleted ${a.name}.`);
  });

  for (const action of ['share', 'unshare'] as const) {
    web.post(`/agents/:id/${action}`, async (c, s, f) => {
      const a = await getAgent(deps(), caller(s), c.req.param('id')!);
      const target = f.get('workspace') === '1' ? { workspace: true as const } : { userId: f.get('userId') };
      if ('userId' in target && !target.userId) throw badRequest('invalid_request', 'Pick a member.', 'userId');
      await (action === 'share' ? shareAgent : unshareAgent)(deps(), caller(s), a.id, target);
      return redirectWith(core, c, `/agents/${a.id}`, action === 'share' ? 'Shared.' : 'No longer shared.');
    });
  }

  // Through the durable queue, under the run API's per-user start allowance.
  web.post('/agents/:id/runs', async (c, s, f) => {
    const a = await getAgent(deps(), caller(s), c.req.param('id')!);
    try {
      requireRole(s, 'member');
      const inputText = f.get('inputText');
      if (!inputText.trim()) throw badRequest('invalid_request', 'Write the input the agent runs on.', 'inputText');
      if (inputText.length > 100_000) throw badRequest('invalid_request', 'The input is too long (at most 100,000 characters).', 'inputText');
      const input = { agentId: a.id, userId: s.user.id, inputText, conversation: f.has('conversation') };
      const run = await startQueuedRun(services.runs, input);
      return c.redirect(`/runs/${run.id}`, 303);
    } catch (err) {
      const { status, errors } = errorsOf(err);
      return detail(c, s, a, { runValues: f.values(), runErrors: errors.inputText || errors._form ? errors : { _form: Object.values(errors)[0]! }, status });
    }
  });
}
