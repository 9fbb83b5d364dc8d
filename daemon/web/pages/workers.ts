// The webhook ref is shown once, at creation and each rotation.
import type { Caller } from '../../../core/agents/access.ts';
import { listAgents } from '../../../core/agents/service.ts';
import { createWorker, deleteWorker, getWorker, listWorkers, rotateWebhookRef, updateWorker, type WorkerDeps, type WorkerView } from '../../../core/workers/service.ts';
import { may, type Session, type WebContext } from '../context.ts';
import { button, errorsOf, Fields, form, redirectWith, type Errors, type Form } from '../form.ts';
import { badge, cut, facts, html, nothing, secretPanel, table, time, type Html } from '../html.ts';
import { requireRole, type Web } from '../router.ts';

const caller = (s: Session): Caller => ({ userId: s.user.id, workspaceId: s.workspace.id, role: s.workspace.role });

export function workerPages(web: Web): void {
  const { core, services } = web;
  const deps = (): WorkerDeps => services.workers;
  const hookUrl = (ref: string) => `${core.config.SERVICE_APP_ORIGIN.replace(/\/+$/, '')}/api/public/webhooks/workers/${ref}`;
  const agentsOf = async (s: Session) => (await listAgents(services.agents, caller(s))).filter((a) => a.latestVersion > 0);

  const fields = (f: Fields, agents: { id: string; name: string }[], editing: boolean): Html =>
    html`${f.input('Name', 'name', { required: true, maxlength: 200 })}
${f.select('Agent', 'agentId', agents.map((a) => ({ value: a.id, label: a.name })), { hint: 'Published agents you may run.' })}
${f.textarea('Input template', 'inputTemplate', { required: true, rows: 3, maxlength: 100_000, hint: 'The input of each run; {{body}} is the webhook body, {{json.field}} a field of a JSON body.' })}
${f.input('Schedule', 'schedule', { maxlength: 200, placeholder: '0 7 * * 1-5', hint: 'Cron, five fields, UTC (e.g. @hourly). Empty: webhook only.' })}
${f.input('Notify URL', 'notifyUrl', { type: 'url', maxlength: 2048, hint: 'Receives a POST when each run ends.' })}
${editing ? f.checkbox('Enabled', 'enabled') : nothing}`;

  const input = (f: Form, editing: boolean) => ({
    name: f.get('name').trim().slice(0, 200),
    agentId: f.get('agentId').slice(0, 64),
    inputTemplate: f.get('inputTemplate').slice(0, 100_000),
    schedule: f.opt('schedule') ?? null,
    notifyUrl: f.opt('notifyUrl') ?? null,
    ...(editing ? { enabled: f.has('enabled') } : {}),
  });

  const listPage = async (c: WebContext, s: Session, o: { values?: Record<string, string>; errors?: Errors; status?: number } = {}) => {
    const [workers, agents] = await Promise.all([listWorkers(deps(), caller(s)), may(s, 'member') ? agentsOf(s) : []]);
    const f = new Fields(o.values ?? {}, o.errors ?? {}, 'wkr');
    return web.page(c, {
      title: 'Workers',
      section: '/workers',
      status: o.status ?? 200,
      body: html`<p>Automations: an agent run on a schedule or when a webhook is called.</p>
${table('Workers', ['Name', 'Schedule', 'Status', 'Webhook', 'Updated'], workers.map((w) => html`<tr><td><a href="/workers/${w.id}">${w.name}</a></td><td>${w.schedule ? html`<code>${w.schedule}</code>` : html`<span class="muted">webhook only</span>`}</td><td>${badge(w.enabled ? 'enabled' : 'disabled')}</td><td><code>${w.webhookRefPreview ?? ''}</code></td><td>${time(w.updatedAt)}</td></tr>`), 'No Worker yet.')}
${may(s, 'member')
  ? agents.length
    ? html`<h2>New Worker</h2>${f.summary()}${form(s.csrf, '/workers', html`${fields(f, agents, false)}<button type="submit">Create Worker</button>`, { label: 'New Worker' })}`
    : html`<p class="muted">Publish an agent first: a Worker runs a published agent.</p>`
  : nothing}`,
    });
  };

  const detailPage = async (c: WebContext, s: Session, w: WorkerView, o: { ref?: string; values?: Record<string, string>; errors?: Errors; status?: number } = {}) => {
    const agents = await agentsOf(s);
    const values = o.values ?? { name: w.name, agentId: w.agentId, inputTemplate: w.inputTemplate, schedule: w.schedule ?? '', notifyUrl: w.notifyUrl ?? '', ...(w.enabled ? { enabled: 'on' } : {}) };
    const f = new Fields(values, o.errors ?? {}, 'wkr');
    const manage = may(s, 'admin') || (may(s, 'member') && w.ownerUserId === s.user.id);
    return web.page(c, {
      title: w.name,
      section: '/workers',
      status: o.status ?? (o.ref ? 201 : 200),
      body: html`${o.ref ? secretPanel('webhook-url', 'Webhook URL', hookUrl(o.ref), 'POST to this URL to start a run. It is shown only now: the path is its only credential. Rotate it if it leaks.') : nothing}
${facts([
  ['Agent', html`<a href="/agents/${w.agentId}">${agents.find((a) => a.id === w.agentId)?.name ?? w.agentId}</a>`],
  ['Schedule', w.schedule ? html`<code>${w.schedule}</code> (UTC)` : 'webhook only'],
  ['Status', badge(w.enabled ? 'enabled' : 'disabled')],
  ['Webhook ref', html`<code>${w.webhookRefPreview ?? ''}</code>`],
  ['Input template', cut(w.inputTemplate, 300)],
])}
${manage ? html`<div class="actions">${button(s.csrf, `/workers/${w.id}/rotate`, 'Rotate the webhook URL')}${button(s.csrf, `/workers/${w.id}/delete`, 'Delete Worker', { danger: true })}</div>
<h2>Edit</h2>${f.summary()}${form(s.csrf, `/workers/${w.id}`, html`${fields(f, agents, true)}<button type="submit">Save</button>`, { label: 'Edit the Worker' })}` : nothing}
<p><a href="/workers">All Workers</a></p>`,
    });
  };

  web.get('/workers', (c, s) => listPage(c, s));

  web.post('/workers', async (c, s, f) => {
    requireRole(s, 'member');
    try {
      const w = await createWorker(deps(), caller(s), input(f, false));
      return detailPage(c, s, w, { ref: w.webhookRef });
    } catch (err) {
      const { status, errors } = errorsOf(err);
      return listPage(c, s, { values: f.values(), errors, status });
    }
  });

  web.get('/workers/:id', async (c, s) => detailPage(c, s, await getWorker(deps(), caller(s), c.req.param('id')!)));

  web.post('/workers/:id', async (c, s, f) => {
    const w = await getWorker(deps(), caller(s), c.req.param('id')!);
    try {
      await updateWorker(deps(), caller(s), w.id, input(f, true));
      return redirectWith(core, c, `/workers/${w.id}`, 'Saved.');
    } catch (err) {
      const { status, errors } = errorsOf(err);
      return detailPage(c, s, w, { values: f.values(), errors, status });
    }
  });

  web.post('/workers/:id/rotate', async (c, s) => {
    const w = await rotateWebhookRef(deps(), caller(s), c.req.param('id')!);
    return detailPage(c, s, w, { ref: w.webhookRef });
  });

  web.post('/workers/:id/delete', async (c, s) => {
    const w = await getWorker(deps(), caller(s), c.req.param('id')!);
    await deleteWorker(deps(), caller(s), w.id);
    return redirectWith(core, c, '/workers', `Deleted ${w.name}.`);
  });
}
