// One renderer for the page and its polled fragment: it works without JavaScript.
import type { ReadEvent, ReadStep } from '../../../core/runs/read.ts';
import { usageTotals } from '../../../core/runs/read.ts';
import { TERMINAL, type RunRow } from '../../../core/runs/types.ts';
import { button } from '../form.ts';
import { badge, cut, facts, html, nothing, table, time, type Html } from '../html.ts';

const pretty = (s: string | null): string => {
  if (s === null) return '';
  try {
    return JSON.stringify(JSON.parse(s), null, 2);
  } catch {
    return s;
  }
};

/** Its text, or the tools it asked for. */
function modelOutput(s: ReadStep): string {
  if (!s.output) return '';
  try {
    const o = JSON.parse(s.output) as { content?: string | null; toolCalls?: { name: string }[]; tool_calls?: { function: { name: string } }[] };
    const calls = (o.toolCalls ?? []).map((t) => t.name).concat((o.tool_calls ?? []).map((t) => t.function.name));
    return [o.content ?? '', calls.length ? `asks for: ${calls.join(', ')}` : ''].filter(Boolean).join(' — ') || cut(s.output, 200);
  } catch {
    return cut(s.output, 200);
  }
}

export interface RunView {
  run: RunRow;
  agentName: string;
  steps: ReadStep[];
  events: ReadEvent[];
}

/** A long run's page stays small; `all` shows every one. */
export const RECENT = 50;

/** `csrf` is set when the viewer may decide the approval. */
export function runLive(v: RunView, csrf: string | undefined, o: { all?: boolean } = {}): Html {
  const { run } = v;
  const steps = o.all ? v.steps : v.steps.slice(-RECENT);
  const events = o.all ? v.events : v.events.slice(-RECENT);
  const more = !o.all && (v.steps.length > RECENT || v.events.length > RECENT);
  const usage = usageTotals(v.steps);
  const over = TERMINAL.has(run.status);
  const waiting = run.status === 'waiting_input' && run.approval_id ? v.steps.find((s) => s.status === 'waiting_approval') : undefined;
  return html`<div${over ? html` data-terminal` : nothing}>
<p class="run-status" role="status">Status: ${badge(run.status)}${over ? nothing : html` <span class="muted">(updates as it happens)</span>`}</p>
${waiting && csrf
  ? html`<section class="alert warn" aria-labelledby="approval-title"><h2 id="approval-title">Approval needed</h2>
<p>The agent wants to call <code>${waiting.name}</code> with:</p><pre>${pretty(waiting.input)}</pre>
<div class="actions">${button(csrf, `/runs/${run.id}/approval`, 'Approve', { name: 'decision', value: 'approve' })}${button(csrf, `/runs/${run.id}/approval`, 'Reject', { name: 'decision', value: 'reject', danger: true })}</div></section>`
  : waiting ? html`<p class="alert warn">Waiting for the person who started the run to approve a call of <code>${waiting.name}</code>.</p>` : nothing}
${run.output_text !== null ? html`<h2>Output</h2><pre class="output">${run.output_text}</pre>` : nothing}
${run.error_message ? html`<div class="alert error"><p><strong>${run.error_code ?? 'error'}</strong>: ${run.error_message}</p></div>` : nothing}
${facts([
  ['Started', time(run.started_at ?? run.created_at)],
  ['Finished', time(run.finished_at)],
  ['Model', usage.model ? html`<code>${usage.model}</code>` : null],
  ['Tokens', `${usage.totalTokens} (input ${usage.inputTokens}, cached ${usage.cachedTokens}, output ${usage.outputTokens}, reasoning ${usage.reasoningTokens})`],
  ['Model calls', usage.modelCalls],
])}
<h2>Steps</h2>
${more ? html`<p>The latest ${RECENT} of ${v.steps.length} steps and of ${v.events.length} events. <a href="/runs/${run.id}?all=1">Show all</a></p>` : nothing}
${table('Steps', ['#', 'Kind', 'Name', 'Status', 'Tokens', 'Result'], steps.map((s) => html`<tr><td>${s.seq}</td><td>${s.kind}</td><td>${s.kind === 'model' ? html`<code>${s.model ?? ''}</code>` : html`<code>${s.name ?? ''}</code>`}</td><td>${badge(s.status === 'waiting_approval' ? 'waiting_input' : s.status)}</td><td class="num">${Number(s.total_tokens) || ''}</td><td>${s.kind === 'model' ? cut(modelOutput(s), 160) : s.error ? cut(s.error, 160) : cut(s.output, 160)}${s.kind === 'tool' && s.input ? html`<details><summary>Call of ${s.name ?? 'tool'} #${s.seq}</summary><pre>${cut(pretty(s.input), 2000)}</pre>${s.output && s.output.length > 160 ? html`<pre>${cut(s.output, 2000)}</pre>` : nothing}</details>` : nothing}</td></tr>`), 'No step yet.')}
<h2>Events</h2>
${table('Events', ['#', 'Event', 'Time'], events.map((e) => html`<tr><td>${e.seq}</td><td><code>${e.kind}</code></td><td>${time(e.created_at)}</td></tr>`), 'No event yet.')}
</div>`;
}
