// GET /api/docs: one server-rendered page, no script, nothing fetched from elsewhere.
import { html, raw, type Html } from '../web/html.ts';

type Json = Record<string, unknown>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const CSS = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fff}
main{max-width:1000px;margin:0 auto;padding:1rem}
h1{font-size:1.6rem}h2{border-bottom:2px solid #d0d7de;padding-top:1rem}h3{font-size:1.05rem;margin:0 0 .3rem}
code,pre{font:13px/1.4 ui-monospace,monospace}pre{background:#f6f8fa;padding:.6rem;overflow:auto;max-height:28rem;border-radius:4px}
.op{border:1px solid #d0d7de;border-radius:6px;padding:.8rem;margin:1rem 0}
.m{display:inline-block;min-width:4.2rem;font-weight:700;text-transform:uppercase}
.get{color:#0a5c2e}.post{color:#0550ae}.put,.patch{color:#7a4a00}.delete{color:#a40e26}
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.2rem .5rem;text-align:left;vertical-align:top}
nav ul{columns:2}@media (max-width:600px){nav ul{columns:1}}
`;

/** Only `code` and **bold**; everything else is escaped. */
function inline(text: string): Html {
  const parts = text.split(/(`[^`]*`|\*\*[^*]+\*\*)/g);
  return html`${parts.map((p) =>
    p.startsWith('`') && p.endsWith('`') && p.length > 1 ? html`<code>${p.slice(1, -1)}</code>` : p.startsWith('**') ? html`<strong>${p.slice(2, -2)}</strong>` : html`${p}`,
  )}`;
}
const paragraphs = (text: unknown): Html => (typeof text === 'string' ? html`${text.split('\n\n').map((p) => html`<p>${inline(p)}</p>`)}` : html``);
const pretty = (v: unknown) => JSON.stringify(v, null, 2);

function operation(method: string, path: string, op: Json): Html {
  const params = (op.parameters as Json[] | undefined) ?? [];
  const body = op.requestBody as { required: boolean; description?: string; content: Record<string, { schema: unknown; example?: unknown }> } | undefined;
  const responses = op.responses as Record<string, { description: string; content?: Record<string, { example?: unknown }> }>;
  const answer = Object.values(responses).find((r) => r.content?.['application/json']?.example !== undefined)?.content!['application/json']!.example;
  return html`<section class="op" id="${op.operationId}">
<h3><span class="m ${method}">${method}</span> <code>${path}</code></h3>
<p><strong>${op.summary}</strong></p>
${paragraphs(op.description)}
${params.length > 0
    ? html`<table><caption>Parameters</caption><tr><th>Name</th><th>In</th><th>Description</th></tr>${params.map((p) => html`<tr><td><code>${p.name}</code>${p.required ? ' (required)' : ''}</td><td>${p.in}</td><td>${inline(String(p.description ?? ''))}</td></tr>`)}</table>`
    : html``}
${body
    ? Object.entries(body.content).map(([type, media]) => html`<h4>Request body (${type}${body.required ? '' : ', optional'})</h4>${body.description ? html`<p>${inline(body.description)}</p>` : html``}
<details><summary>Schema</summary><pre>${pretty(media.schema)}</pre></details>
${media.example !== undefined ? html`<p>Example:</p><pre>${pretty(media.example)}</pre>` : html``}`)
    : html``}
${answer !== undefined ? html`<details><summary>Example answer</summary><pre>${pretty(answer)}</pre></details>` : html``}
<h4>Responses</h4><table>${Object.entries(responses).map(([status, r]) => html`<tr><td>${status}</td><td>${inline(r.description)}</td></tr>`)}</table>
</section>`;
}

export function renderDocs(doc: Json, nonce: string): string {
  const info = doc.info as { title: string; version: string; description: string };
  const tags = doc.tags as Array<{ name: string; description: string }>;
  const paths = doc.paths as Record<string, Record<string, Json>>;
  const byTag = new Map<string, Array<[string, string, Json]>>(tags.map((t) => [t.name, []]));
  for (const [path, item] of Object.entries(paths)) {
    for (const m of METHODS) if (item[m]) byTag.get((item[m].tags as string[])[0]!)?.push([m, path, item[m]]);
  }
  const components = doc.components as { securitySchemes: Record<string, Json>; schemas: Record<string, Json> };
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${info.title} ${info.version} · reference</title><style nonce="${nonce}">${raw(CSS)}</style></head>
<body><main>
<h1>${info.title} <small>${info.version}</small></h1>
${paragraphs(info.description)}
<p>Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI ${String(doc.openapi)}).</p>
<nav aria-label="Contents"><ul>${tags.map((t) => html`<li><a href="#tag-${t.name.replace(/\W+/g, '-')}">${t.name}</a> (${byTag.get(t.name)?.length ?? 0})</li>`)}</ul></nav>
<h2>Credentials</h2>
<table><tr><th>Scheme</th><th>Where</th><th>What</th></tr>${Object.entries(components.securitySchemes).map(([name, s]) => html`<tr><td><code>${name}</code></td><td>${s.type === 'http' ? `Authorization: Bearer ${String(s.bearerFormat)}` : `${String(s.in)} ${String(s.name)}`}</td><td>${inline(String(s.description))}</td></tr>`)}</table>
<h2>Errors</h2>
${Object.entries(components.schemas).map(([name, s]) => html`<h3>${name}</h3><p>${inline(String(s.description))}</p><pre>${pretty(s.example)}</pre>`)}
${tags.map((t) => html`<h2 id="tag-${t.name.replace(/\W+/g, '-')}">${t.name}</h2><p>${t.description}</p>${(byTag.get(t.name) ?? []).map(([m, p, op]) => operation(m, p, op))}`)}
</main></body></html>`;
  return page.toString();
}
