// The first-run guide follows the API's activation milestones.
import { workspaceActivation } from '../../../core/activation/service.ts';
import { listRunsPage } from '../../../core/runs/read.ts';
import { may, type Session } from '../context.ts';
import { badge, cut, html, nothing, time, type Html } from '../html.ts';
import type { Web } from '../router.ts';

export function homePages(web: Web): void {
  const { core, services } = web;

  web.publicGet('/', async (c, s) => {
    if (!s) {
      return web.page(c, {
        title: 'svc',
        narrow: true,
        body: html`<p>An agent runner and an OpenAI-compatible gateway for your own models and keys.</p>
<div class="actions"><a class="button" href="/sign-in">Sign in</a><a class="button secondary" href="/sign-up">Create an account</a></div>`,
      });
    }
    const [activation, runs] = await Promise.all([
      workspaceActivation(services.activation, s.workspace.id),
      listRunsPage(core.db, { userId: s.user.id, workspaceId: s.workspace.id, limit: 5 }),
    ]);
    const m = activation.milestones;
    return web.page(c, {
      title: `Hello, ${s.user.name}`,
      section: '/',
      body: html`<p>You are working in <strong>${s.workspace.name}</strong> as <strong>${s.workspace.role}</strong>.</p>
${activation.activated ? nothing : guide(s, m, core.config.localLlmBaseUrl)}
<h2>Latest runs</h2>
${runs.rows.length === 0
  ? html`<p class="muted">No runs yet.</p>`
  : html`<div class="table-wrap"><table><thead><tr><th scope="col">Run</th><th scope="col">Agent</th><th scope="col">Status</th><th scope="col">Input</th><th scope="col">Started</th></tr></thead><tbody>
${runs.rows.map((r) => html`<tr><td><a href="/runs/${r.id}">${r.id}</a></td><td>${r.agent_name}</td><td>${badge(r.status)}</td><td>${cut(r.input_text, 60)}</td><td>${time(r.created_at)}</td></tr>`)}
</tbody></table></div><p><a href="/runs">All runs</a></p>`}`,
    });
  });
}

function guide(s: Session, m: { providerConnected: boolean; agentPublished: boolean; firstRunCompleted: boolean; memberInvited: boolean }, local: string | undefined): Html {
  const step = (done: boolean, title: string, text: Html) =>
    html`<li class="${done ? 'done' : 'todo'}"><strong>${title}</strong> ${done ? html`<span class="badge ok">done</span>` : nothing}<br>${text}</li>`;
  const admin = may(s, 'admin');
  const member = may(s, 'member');
  return html`<section class="card" aria-labelledby="first-run"><h2 id="first-run">Get started</h2><ol class="steps">
${step(
  m.providerConnected,
  'Connect a model',
  local
    ? html`The local model server at <code>${local}</code> is already connected (LOCAL_LLM_BASE_URL).${admin ? html` You can also <a href="/provider-accounts">add a hosted provider</a>.` : nothing}`
    : admin
      ? html`<a href="/provider-accounts">Add a provider account</a>: an OpenAI-compatible server, OpenAI, Anthropic and others.`
      : html`An admin of this workspace adds a provider account.`,
)}
${step(m.agentPublished, 'Make an agent and publish it', member ? html`<a href="/agents/new">Create an agent</a>, pick its model and tools, then publish.` : html`Members create agents; you can read them.`)}
${step(m.firstRunCompleted, 'Run it', member ? html`Open a published agent on the <a href="/agents">agents page</a> and start a run; watch it live.` : html`Members run agents; you can read runs.`)}
${step(m.memberInvited, 'Invite someone', admin ? html`<a href="/invitations">Invite a colleague</a> with the role they need.` : html`Admins and owners invite people.`)}
</ol></section>`;
}
