import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { sessionUser } from '../../core/accounts/sessions.ts';
import { workspacesOf } from '../../core/accounts/workspaces.ts';
import type { Core } from '../../core/index.ts';
import { accountsDeps, SESSION_COOKIE } from '../middleware/session.ts';
import type { AppEnv } from '../types.ts';

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
label{display:block;margin:.75rem 0}input{display:block;width:100%;padding:.4rem;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1rem}#error{color:#b00020}`;

/**
 * Submits the form as JSON (the APIs refuse other content types, which is also what keeps
 * cross-site form posts out), shows the API's message on failure, goes home on success.
 * Empty optional fields are left out rather than sent as "".
 */
const FORM_SCRIPT = `const f=document.querySelector('form'),e=document.getElementById('error');
f.addEventListener('submit',async(ev)=>{ev.preventDefault();e.textContent='';const b={};
for(const [k,v] of new FormData(f)){if(v!==''||f.elements[k].required)b[k]=v}
try{const r=await fetch(f.dataset.api,{method:'POST',credentials:'same-origin',headers:{'content-type':'application/json'},body:JSON.stringify(b)});
if(r.ok){location.assign('/');return}const j=await r.json().catch(()=>null);e.textContent=(j&&j.error&&j.error.message)||('Request failed ('+r.status+')')}
catch{e.textContent='The service could not be reached.'}});`;

const LOGOUT_SCRIPT = `document.getElementById('logout').addEventListener('click',async()=>{
const m=document.cookie.match(/(?:^|;\\s*)service_csrf=([^;]*)/);
await fetch('/api/auth/logout',{method:'POST',credentials:'same-origin',headers:{'x-csrf-token':m?decodeURIComponent(m[1]):''}});location.assign('/')});`;

function page(c: Context<AppEnv>, title: string, body: string, script?: string): Response {
  // A fresh nonce per response: only our own inline script and style run, nothing injected.
  const nonce = randomBytes(16).toString('base64');
  c.header(
    'Content-Security-Policy',
    `default-src 'self'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
  );
  c.header('X-Frame-Options', 'DENY');
  // The sign-up URL carries the invitation token: never send it onward in a Referer.
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Cache-Control', 'no-store');
  const scriptTag = script ? `<script nonce="${nonce}">${script}</script>` : '';
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
      `<title>${escapeHtml(title)} · svc</title><style nonce="${nonce}">${STYLE}</style></head>` +
      `<body><h1>${escapeHtml(title)}</h1>${body}${scriptTag}</body></html>`,
  );
}

const field = (label: string, name: string, type: string, extra = '') =>
  `<label>${label}<input name="${name}" type="${type}"${extra}></label>`;

/** Minimal server-rendered pages: sign up (with the invitation code from `?invite=`), sign in, home. */
export function pageRoutes(core: Core): Hono<AppEnv> {
  const deps = accountsDeps(core);
  const app = new Hono<AppEnv>();

  app.get('/sign-up', (c) => {
    const invite = c.req.query('invite') ?? '';
    const form =
      `<form data-api="/api/auth/register" novalidate>` +
      field('Invitation code', 'invitationToken', 'text', ` value="${escapeHtml(invite)}" autocomplete="off" maxlength="200"`) +
      field('Email', 'email', 'email', ' required autocomplete="email" maxlength="320"') +
      field('Name', 'name', 'text', ' autocomplete="name" maxlength="200"') +
      field('Password (at least 8 characters)', 'password', 'password', ' required autocomplete="new-password" minlength="8" maxlength="1024"') +
      `<button type="submit">Create account</button><p id="error" role="alert"></p></form>` +
      `<p>Already have an account? <a href="/sign-in">Sign in</a></p>`;
    return page(c, 'Sign up', form, FORM_SCRIPT);
  });

  app.get('/sign-in', (c) => {
    const form =
      `<form data-api="/api/auth/login" novalidate>` +
      field('Email', 'email', 'email', ' required autocomplete="username" maxlength="320"') +
      field('Password', 'password', 'password', ' required autocomplete="current-password" maxlength="1024"') +
      `<button type="submit">Sign in</button><p id="error" role="alert"></p></form>` +
      `<p>No account? <a href="/sign-up">Sign up</a></p>`;
    return page(c, 'Sign in', form, FORM_SCRIPT);
  });

  app.get('/', async (c) => {
    const user = await sessionUser(deps, getCookie(c, SESSION_COOKIE));
    if (!user) return page(c, 'svc', `<p><a href="/sign-in">Sign in</a> or <a href="/sign-up">sign up</a>.</p>`);
    const workspaces = await workspacesOf(core.db, user.id);
    const list = workspaces.map((w) => `<li>${escapeHtml(w.name)} (${escapeHtml(w.role)})</li>`).join('');
    const body =
      `<p>Signed in as ${escapeHtml(user.name)} &lt;${escapeHtml(user.email)}&gt;.</p>` +
      `<h2>Workspaces</h2><ul>${list}</ul><button id="logout" type="button">Sign out</button>`;
    return page(c, 'svc', body, LOGOUT_SCRIPT);
  });

  return app;
}
