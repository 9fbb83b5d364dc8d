import type { Core } from '../../core/index.ts';
import type { WebAssets } from './assets.ts';
import { may, pageState, type Session, type WebContext } from './context.ts';
import { csrfInput, takeFlash } from './form.ts';
import { html, nothing, type Html } from './html.ts';

export interface PageOptions {
  title: string;
  body: Html;
  /** The nav entry to mark as the current page. */
  section?: string;
  status?: number;
  /** Sign-in, sign-up. */
  narrow?: boolean;
}

interface NavItem {
  href: string;
  label: string;
  show: (s: Session) => boolean;
}

/** Entries a role cannot use are hidden (the API refuses them anyway). */
const NAV: NavItem[] = [
  { href: '/', label: 'Home', show: () => true },
  { href: '/agents', label: 'Agents', show: () => true },
  { href: '/runs', label: 'Runs', show: () => true },
  { href: '/conversations', label: 'Conversations', show: () => true },
  { href: '/workers', label: 'Workers', show: () => true },
  { href: '/provider-accounts', label: 'Providers', show: () => true },
  { href: '/tokens', label: 'Keys', show: () => true },
  { href: '/usage', label: 'Usage', show: () => true },
  { href: '/members', label: 'Members', show: () => true },
  { href: '/invitations', label: 'Invitations', show: (s) => may(s, 'admin') },
  { href: '/account', label: 'Account', show: () => true },
];

/** A strict CSP with this response's nonce, no framing. */
export function pageHeaders(c: WebContext, nonce: string, previewOrigin?: string): void {
  const frame = previewOrigin ? ` frame-src ${previewOrigin};` : '';
  c.header(
    'Content-Security-Policy',
    `default-src 'self'; script-src 'nonce-${nonce}'; style-src 'self' 'nonce-${nonce}'; img-src 'self' data:; connect-src 'self'; font-src 'self';${frame} object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
  );
  c.header('X-Frame-Options', 'DENY');
  // URLs carry invitation tokens. Not no-referrer: our own form posts
  // would send `Origin: null`, which the DNS-rebinding check refuses.
  c.header('Referrer-Policy', 'same-origin');
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Cache-Control', 'no-store');
}

function header(s: Session, section: string | undefined): Html {
  const items = NAV.filter((n) => n.show(s));
  const switcher =
    s.workspaces.length > 1
      ? html`<form method="post" action="/workspace" class="switcher">${csrfInput(s.csrf)}<input type="hidden" name="back" value="${section ?? "/"}"><label for="ws-switch">Workspace</label>
<select id="ws-switch" name="workspaceId" data-autosubmit>${s.workspaces.map((w) => html`<option value="${w.id}"${w.id === s.workspace.id ? html` selected` : nothing}>${w.name} (${w.role})</option>`)}</select>
<button type="submit" class="secondary">Switch</button></form>`
      : html`<p class="switcher who">${s.workspace.name} (${s.workspace.role})</p>`;
  return html`<header class="top"><div class="bar"><a class="brand" href="/">svc</a>
${switcher}
<form method="post" action="/sign-out" class="inline signout">${csrfInput(s.csrf)}<button type="submit" class="secondary">Sign out</button></form></div>
<nav class="main" aria-label="Main"><ul>${items.map((n) => html`<li><a href="${n.href}"${n.href === section ? html` aria-current="page"` : nothing}>${n.label}</a></li>`)}</ul></nav>
</header>`;
}

export function renderPage(core: Core, c: WebContext, assets: WebAssets, o: PageOptions): Response {
  const { nonce, session } = pageState(c);
  pageHeaders(c, nonce, core.config.SERVICE_PREVIEW_ORIGIN);
  const flash = takeFlash(core, c);
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${o.title} · svc</title><link rel="stylesheet" href="${assets.css.path}"><script nonce="${nonce}" src="${assets.js.path}" defer></script></head>
<body><a class="skip" href="#main">Skip to content</a>
${session ? header(session, o.section) : nothing}
<main id="main"${o.narrow ? html` class="narrow"` : nothing}>
${flash ? html`<div class="alert ${flash.kind}" role="${flash.kind === 'error' ? 'alert' : 'status'}">${flash.text}</div>` : nothing}
<h1>${o.title}</h1>
${o.body}
</main>
<footer>svc · <a href="/api/health">health</a></footer>
</body></html>`;
  return c.html(page, (o.status ?? 200) as 200);
}
