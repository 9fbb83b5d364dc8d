// 30 days of gateway usage (the workspace's for admins), and quotas.
import { LIMIT_NAMES, type Limits } from '../../../core/quota/limits.ts';
import { usageByDayAndModel } from '../../../core/usage/repo.ts';
import { badRequest } from '../../../core/kernel/errors.ts';
import { barChart, columnChart } from '../chart.ts';
import { may, type Session, type WebContext } from '../context.ts';
import { errorsOf, Fields, form, redirectWith, type Errors } from '../form.ts';
import { facts, html, nothing, table } from '../html.ts';
import { requireRole, type Web } from '../router.ts';

const DAYS = 30;
const NAMES: Record<(typeof LIMIT_NAMES)[number], string> = { requestsPerMinute: 'Requests per minute', tokensPerMinute: 'Tokens per minute', tokensPerMonth: 'Tokens per month' };
const shown = (n: number | null) => (n === null ? 'no limit' : n.toLocaleString('en'));

export function usagePages(web: Web): void {
  const { core, services } = web;
  const rt = () => services.gateway;

  const page = async (c: WebContext, s: Session, o: { values?: Record<string, string>; errors?: Errors; status?: number } = {}) => {
    const admin = may(s, 'admin');
    const now = core.clock.now();
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const from = day(now - (DAYS - 1) * 86_400_000);
    await rt().usage.flush(); // rows still batched in memory count too
    const [rows, wsLimits, mine] = await Promise.all([
      usageByDayAndModel(core.db, { workspaceId: s.workspace.id, ...(admin ? {} : { userId: s.user.id }), fromDay: from, toDay: day(now) }),
      rt().limits.workspace(s.workspace.id),
      rt().limits.member(s.workspace.id, s.user.id),
    ]);
    const perDay = new Map<string, number>();
    const perModel = new Map<string, { requests: number; input: number; cached: number; output: number; reasoning: number; total: number }>();
    for (const r of rows) {
      perDay.set(r.day, (perDay.get(r.day) ?? 0) + Number(r.total_tokens));
      const m = perModel.get(r.model) ?? { requests: 0, input: 0, cached: 0, output: 0, reasoning: 0, total: 0 };
      m.requests += Number(r.requests);
      m.input += Number(r.input_tokens);
      m.cached += Number(r.cached_tokens);
      m.output += Number(r.output_tokens);
      m.reasoning += Number(r.reasoning_tokens);
      m.total += Number(r.total_tokens);
      perModel.set(r.model, m);
    }
    const days = Array.from({ length: DAYS }, (_, i) => day(now - (DAYS - 1 - i) * 86_400_000));
    const models = [...perModel.entries()].sort((a, b) => b[1].total - a[1].total);
    const f = new Fields(o.values ?? Object.fromEntries(LIMIT_NAMES.map((k) => [k, wsLimits[k]?.toString() ?? ''])), o.errors ?? {}, 'lim');
    return web.page(c, {
      title: 'Usage and quotas',
      section: '/usage',
      status: o.status ?? 200,
      body: html`<p>Gateway tokens of ${admin ? html`everyone in ${s.workspace.name}` : 'your keys'} over the last ${DAYS} days (UTC).</p>
${rows.length === 0
  ? html`<p class="muted">No gateway traffic in this period.</p>`
  : html`<h2>Tokens per day</h2>${columnChart('per-day', `Tokens per day, ${from} to ${days.at(-1)}`, days.map((d) => ({ label: d, value: perDay.get(d) ?? 0 })))}
<h2>Tokens per model</h2>${barChart('per-model', 'Tokens per model', models.map(([m, v]) => ({ label: m, value: v.total })))}
${table('Usage per model', ['Model', 'Requests', 'Input', 'Cached', 'Output', 'Reasoning', 'Total'], models.map(([m, v]) => html`<tr><td><code>${m}</code></td><td class="num">${v.requests}</td><td class="num">${v.input}</td><td class="num">${v.cached}</td><td class="num">${v.output}</td><td class="num">${v.reasoning}</td><td class="num">${v.total}</td></tr>`))}`}
<h2>Quotas</h2>
<div class="split"><div><h3>Workspace</h3>${facts(LIMIT_NAMES.map((k) => [NAMES[k], shown(wsLimits[k])]))}</div>
<div><h3>You</h3>${facts(LIMIT_NAMES.map((k) => [NAMES[k], shown(mine[k])]))}<p class="hint">A key may have tighter limits of its own; the tightest applies.</p></div></div>
${admin ? html`<h3>Set the workspace's limits</h3>${f.summary()}${form(s.csrf, '/usage/limits', html`${LIMIT_NAMES.map((k) => f.input(NAMES[k], k, { type: 'number', min: 1, step: '1', hint: 'Empty: no limit.' }))}<button type="submit">Save limits</button>`, { label: 'Workspace limits' })}` : nothing}`,
    });
  };

  web.get('/usage', (c, s) => page(c, s));

  web.post('/usage/limits', async (c, s, f) => {
    requireRole(s, 'admin');
    try {
      const limits = {} as Limits;
      for (const k of LIMIT_NAMES) {
        const v = f.opt(k);
        const n = v === undefined ? null : Number(v);
        if (n !== null && (!Number.isSafeInteger(n) || n < 1)) throw badRequest('invalid_request', 'A whole number above 0, or empty for no limit.', k);
        limits[k] = n;
      }
      await rt().limits.set(s.workspace.id, '', limits);
      return redirectWith(core, c, '/usage', 'Saved the workspace limits.');
    } catch (err) {
      const { status, errors } = errorsOf(err);
      return page(c, s, { values: f.values(), errors, status });
    }
  });
}
