// Server-rendered SVG: no script; a text alternative and a table beside each.
import { html, type Html } from './html.ts';

export interface Bar {
  label: string;
  value: number;
}

const fmt = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e4 ? `${Math.round(n / 1e3)}k` : String(n));

/** One bar per day. */
export function columnChart(id: string, title: string, bars: Bar[]): Html {
  const w = 720;
  const h = 200;
  const pad = { l: 44, b: 24, t: 10 };
  const max = Math.max(1, ...bars.map((b) => b.value));
  const slot = (w - pad.l) / Math.max(1, bars.length);
  const every = Math.max(1, Math.ceil(bars.length / 10));
  const y = (v: number) => pad.t + (h - pad.t - pad.b) * (1 - v / max);
  return html`<figure><svg class="chart" id="${id}" viewBox="0 0 ${w} ${h}" role="img" aria-labelledby="${id}-t"><title id="${id}-t">${title}</title>
<line class="axis" x1="${pad.l}" y1="${h - pad.b}" x2="${w}" y2="${h - pad.b}"></line>
<text x="${pad.l - 6}" y="${pad.t + 10}" text-anchor="end">${fmt(max)}</text><text x="${pad.l - 6}" y="${h - pad.b}" text-anchor="end">0</text>
${bars.map((b, i) => html`<rect class="bar" x="${(pad.l + i * slot + slot * 0.15).toFixed(1)}" y="${y(b.value).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${(h - pad.b - y(b.value)).toFixed(1)}"><title>${b.label}: ${b.value}</title></rect>${i % every === 0 ? html`<text x="${(pad.l + i * slot + slot / 2).toFixed(1)}" y="${h - 8}" text-anchor="middle">${b.label.slice(5)}</text>` : ''}`)}
</svg></figure>`;
}

/** One bar per model. */
export function barChart(id: string, title: string, bars: Bar[]): Html {
  const row = 26;
  const w = 720;
  const label = 260;
  const h = Math.max(1, bars.length) * row + 4;
  const max = Math.max(1, ...bars.map((b) => b.value));
  return html`<figure><svg class="chart" id="${id}" viewBox="0 0 ${w} ${h}" role="img" aria-labelledby="${id}-t"><title id="${id}-t">${title}</title>
${bars.map((b, i) => {
  const len = ((w - label - 70) * b.value) / max;
  return html`<text x="${label - 8}" y="${i * row + 17}" text-anchor="end">${b.label.length > 38 ? `${b.label.slice(0, 37)}…` : b.label}</text><rect class="bar" x="${label}" y="${i * row + 5}" width="${len.toFixed(1)}" height="${row - 10}"><title>${b.label}: ${b.value}</title></rect><text x="${(label + len + 6).toFixed(1)}" y="${i * row + 17}">${fmt(b.value)}</text>`;
})}
</svg></figure>`;
}
