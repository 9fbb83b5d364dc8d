// The caller's runs, and a live run page that takes approvals.
import { APP_EVENT, runAppsWithLinks } from '../../../core/apps/service.ts';
import { decideApproval } from '../../../core/runs/approvals.ts';
import { executeRun } from '../../../core/runs/executor.ts';
import { runWithAgentName } from '../../../core/runs/repo/runs.ts';
import { listRunsPage, loadRun } from '../../../core/runs/read.ts';
import { badRequest, notFound } from '../../../core/kernel/errors.ts';
import type { Core } from '../../../core/index.ts';
import type { Services } from '../../../core/services.ts';
import { pageState, type Session } from '../context.ts';
import { redirectWith } from '../form.ts';
import { badge, cut, html, pager, table, time } from '../html.ts';
import { pageHeaders } from '../layout.ts';
import type { Web } from '../router.ts';
import { runLive, type RunView } from './run-view.ts';

export const RUNS_PER_PAGE = 50;

/** Another user's run is a 404. */
export async function runViewOf(core: Core, services: Services, s: Session, runId: string): Promise<RunView> {
  const row = await runWithAgentName(core.db, runId);
  if (!row || row.user_id !== s.user.id) throw notFound('Run');
  const { run, steps, events } = await loadRun(services.runReads, row.agent_id, row.id, s.user.id);
  return { run, steps, events, agentName: row.agent_name ?? row.agent_id };
}

export function runPages(web: Web): void {
  const { core, services } = web;

  web.get('/runs', async (c, s) => {
    const agentId = c.req.query('agent') || undefined;
    const before = c.req.query('before') || undefined;
    const { rows, next } = await listRunsPage(core.db, { userId: s.user.id, workspaceId: s.workspace.id, limit: RUNS_PER_PAGE, before, agentId });
    const base = agentId ? `/runs?agent=${encodeURIComponent(agentId)}` : '/runs';
    return web.page(c, {
      title: 'Runs',
      section: '/runs',
      body: html`<p>Your runs in ${s.workspace.name}, newest first.${agentId ? html` Only one agent: <a href="/runs">show all</a>.` : ''}</p>
${table('Runs', ['Run', 'Agent', 'Status', 'Input', 'Started', 'Finished'], rows.map((r) => html`<tr><td><a href="/runs/${r.id}">${r.id}</a></td><td><a href="/agents/${r.agent_id}">${r.agent_name}</a></td><td>${badge(r.status)}</td><td>${cut(r.input_text, 60)}</td><td>${time(r.created_at)}</td><td>${time(r.finished_at)}</td></tr>`), 'No runs yet. Start one from an agent\'s page.')}
${pager(base, next, !before)}`,
    });
  });

  web.get('/runs/:id', async (c, s) => {
    const v = await runViewOf(core, services, s, c.req.param('id')!);
    const all = c.req.query('all') === '1';
    // Outside the live region, so polling never reloads the frames.
    // Only with the app event, as the run read does.
    const apps = v.events.some((e) => e.kind === APP_EVENT) ? await runAppsWithLinks(services.previewLinks, v.run.id) : [];
    return web.page(c, {
      title: `Run of ${v.agentName}`,
      section: '/runs',
      body: html`<p><code>${v.run.id}</code> · <a href="/agents/${v.run.agent_id}">${v.agentName}</a> (version ${v.run.agent_version})${v.run.conversation_id ? html` · <a href="/conversations/${v.run.conversation_id}">conversation</a>` : ''}</p>
<h2>Input</h2><pre>${cut(v.run.input_text, 20_000)}</pre>
<div id="run-live" data-live="/runs/${v.run.id}/live${all ? '?all=1' : ''}">${runLive(v, s.csrf, { all })}</div>
${apps.length ? html`<h2>Apps</h2>${apps.map((a) => html`<section class="app-preview" aria-label="App ${a.title}"><p><strong>${a.title}</strong> (version ${a.version}) · <a href="${a.preview.url}" target="_blank" rel="noopener noreferrer">open in a new tab</a> <span class="muted">(link valid until ${time(a.preview.expiresAt)})</span></p>
<iframe src="${a.preview.url}" title="${a.title}" sandbox="allow-scripts allow-forms allow-popups allow-modals" loading="lazy" referrerpolicy="no-referrer"></iframe></section>`)}` : ''}`,
    });
  });

  // Polled: signed out is a 401, not a redirect.
  web.publicGet('/runs/:id/live', async (c, s) => {
    pageHeaders(c, pageState(c).nonce);
    if (!s) return c.text('Sign in again to follow this run.', 401);
    const v = await runViewOf(core, services, s, c.req.param('id')!);
    return c.html(runLive(v, s.csrf, { all: c.req.query('all') === '1' }));
  });

  web.post('/runs/:id/approval', async (c, s, f) => {
    const v = await runViewOf(core, services, s, c.req.param('id')!);
    const decision = f.get('decision');
    if (decision !== 'approve' && decision !== 'reject') throw badRequest('invalid_request', 'decision must be approve or reject.', 'decision');
    if (!v.run.approval_id) return redirectWith(core, c, `/runs/${v.run.id}`, 'This run is not waiting for an approval.', 'error');
    const { deps } = services.runs;
    const outcome = await decideApproval(deps, { agentId: v.run.agent_id, runId: v.run.id, approvalId: v.run.approval_id, userId: s.user.id, decision }, services.runs.requeue);
    // In-request runs resume here; queued ones go back to the queue.
    if (outcome.resumed) void executeRun(deps, v.run.id, outcome.token).catch((err: unknown) => core.log.error('resumed run failed', { runId: v.run.id, error: err }));
    return redirectWith(core, c, `/runs/${v.run.id}`, decision === 'approve' ? 'Approved: the run continues.' : 'Rejected: the run is cancelled.');
  });
}
