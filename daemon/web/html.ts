// Hono's `html` escapes once; no page interpolates a Promise, so all are sync.
import { html as honoHtml, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

export type Html = HtmlEscapedString;
export { raw };

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  const out = honoHtml(strings, ...values);
  if (out instanceof Promise) throw new Error('a page template interpolated a Promise');
  return out;
}

export const nothing: Html = raw('');

/** `2025-01-31 14:05 UTC`; the datetime attribute keeps the full instant. */
export function time(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)}</time>`;
}

const STATUS_TONE: Record<string, string> = {
  completed: 'ok', active: 'ok', pending: 'info', used: 'ok', delivered: 'ok', sent: 'ok', enabled: 'ok',
  queued: 'info', running: 'info', waiting_input: 'warn', not_sent: 'muted',
  failed: 'bad', cancelled: 'muted', timed_out: 'bad', revoked: 'muted', expired: 'muted', bounced: 'bad', disabled: 'muted', unreachable: 'bad',
};

/** The word carries the meaning; the colour only helps. */
export function badge(status: string): Html {
  return html`<span class="badge ${STATUS_TONE[status] ?? 'muted'}">${status.replace(/_/g, ' ')}</span>`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The full text stays on the detail page. */
export function cut(s: string | null | undefined, max = 80): string {
  if (!s) return '';
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Keyset: "Newer" back to the first page, "Older" with the cursor. */
export function pager(base: string, next: string | undefined, isFirst: boolean): Html {
  if (!next && isFirst) return nothing;
  return html`<nav class="pager" aria-label="Pages">
    ${isFirst ? nothing : html`<a href="${base}">Newest</a>`}
    ${next ? html`<a href="${base}${base.includes('?') ? '&' : '?'}before=${encodeURIComponent(next)}" rel="next">Older</a>` : nothing}
  </nav>`;
}

/** Scrolls on narrow screens; the caption is for screen readers. */
export function table(caption: string, head: readonly string[], rows: readonly Html[], empty = 'Nothing here yet.'): Html {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<div class="table-wrap"><table><caption class="sr-only">${caption}</caption><thead><tr>${head.map((h) => html`<th scope="col"${/^(Tokens|Requests|Input|Cached|Output|Reasoning|Total|Calls|Messages)/.test(h) ? html` class="num"` : nothing}>${h}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** A definition list of facts about one thing. */
export function facts(items: readonly [string, Html | string | number | null | undefined][]): Html {
  return html`<dl class="facts">${items.map(([k, v]) => html`<dt>${k}</dt><dd>${v === null || v === undefined || v === '' ? html`<span class="muted">—</span>` : v}</dd>`)}</dl>`;
}

/** A secret shown once, with a copy button. */
export function secretPanel(id: string, title: string, value: string, note: string): Html {
  return html`<section class="secret" aria-labelledby="${id}-title"><h2 id="${id}-title">${title}</h2><p>${note}</p>
<code id="${id}">${value}</code><button type="button" class="secondary" data-copy="${id}">Copy</button> <span id="${id}-status" role="status"></span></section>`;
}
