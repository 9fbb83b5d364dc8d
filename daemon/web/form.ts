// Forms without JavaScript: CSRF on every POST, a flash across the redirect,
// and each API error shown at the field it names.
import { createHmac, randomBytes } from 'node:crypto';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { safeEqual } from '../../core/auth/tokens.ts';
import { AppError } from '../../core/kernel/errors.ts';
import type { Core } from '../../core/index.ts';
import { unreadableBody } from '../http/json-body.ts';
import type { Session, WebContext } from './context.ts';
import { html, nothing, type Html } from './html.ts';

export const CSRF_FIELD = '_csrf';
/** Before sign-in a random cookie stands in for the session (login CSRF). */
const FORM_COOKIE = 'service_form';
const FLASH_COOKIE = 'service_flash';

function anonymousToken(core: Core, c: WebContext): string {
  let seed = getCookie(c, FORM_COOKIE);
  if (!seed || !/^[A-Za-z0-9_-]{22}$/.test(seed)) {
    seed = randomBytes(16).toString('base64url');
    setCookie(c, FORM_COOKIE, seed, { httpOnly: true, sameSite: 'Strict', secure: core.config.production, path: '/' });
  }
  return createHmac('sha256', core.auth.csrfKey).update(`form:${seed}`).digest('base64url');
}

/** The session's CSRF value, or the pre-session one. */
export function formToken(core: Core, c: WebContext, session: Session | undefined): string {
  return session ? session.csrf : anonymousToken(core, c);
}

export const csrfInput = (token: string): Html => html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;

/** A repeated name keeps every value. */
export class Form {
  readonly #p: URLSearchParams;
  constructor(p: URLSearchParams) {
    this.#p = p;
  }
  get(name: string): string {
    return this.#p.get(name) ?? '';
  }
  /** Undefined when empty: optional API fields are left out. */
  opt(name: string): string | undefined {
    const v = this.get(name).trim();
    return v === '' ? undefined : v;
  }
  all(name: string): string[] {
    return this.#p.getAll(name);
  }
  has(name: string): boolean {
    return this.#p.has(name);
  }
  /** To fill a form again after an error. */
  values(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of this.#p) if (k !== CSRF_FIELD && !/password|secret|apikey/i.test(k)) out[k] = v;
    return out;
  }
}

export const csrfRefused = () =>
  new AppError('csrf_failed', 'This form expired or was sent from another site. Reload the page and try again.');

/** Urlencoded (415), bounded (413), CSRF compared in constant time (403). */
export async function readForm(core: Core, c: WebContext, session: Session | undefined): Promise<Form> {
  const type = (c.req.header('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw new AppError('unsupported_media_type', 'Forms are sent as application/x-www-form-urlencoded.');
  let text: string;
  try {
    text = await c.req.text();
  } catch (err) {
    throw unreadableBody(err);
  }
  const form = new Form(new URLSearchParams(text));
  const sent = form.get(CSRF_FIELD);
  const expected = session ? session.csrf : getCookie(c, FORM_COOKIE) ? anonymousToken(core, c) : undefined;
  if (!expected || !sent || !safeEqual(expected, sent)) throw csrfRefused();
  return form;
}

// --- flash: one message shown on the next page, after a redirect ---------------------------------

export interface Flash {
  kind: 'ok' | 'error';
  text: string;
}

export function setFlash(core: Core, c: WebContext, flash: Flash): void {
  const value = Buffer.from(JSON.stringify(flash)).toString('base64url');
  setCookie(c, FLASH_COOKIE, value, { httpOnly: true, sameSite: 'Lax', secure: core.config.production, path: '/', maxAge: 60 });
}

export function takeFlash(core: Core, c: WebContext): Flash | undefined {
  const raw = getCookie(c, FLASH_COOKIE);
  if (!raw) return undefined;
  deleteCookie(c, FLASH_COOKIE, { path: '/', secure: core.config.production });
  try {
    const f = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Flash;
    if ((f.kind === 'ok' || f.kind === 'error') && typeof f.text === 'string') return { kind: f.kind, text: f.text.slice(0, 500) };
  } catch {}
  return undefined;
}

/** 303, so a reload never re-submits. */
export function redirectWith(core: Core, c: WebContext, to: string, text: string, kind: Flash['kind'] = 'ok'): Response {
  setFlash(core, c, { kind, text });
  return c.redirect(to, 303);
}

// --- fields ---------------------------------------------------------------------------------------

export type Errors = Record<string, string>;

/** A 4xx names its field or the form; anything else rethrows. */
export function errorsOf(err: unknown): { status: number; errors: Errors } {
  if (err instanceof AppError && err.status < 500) return { status: err.status, errors: { [err.field ?? '_form']: err.message } };
  throw err;
}

export interface FieldOpts {
  type?: string;
  required?: boolean;
  hint?: string;
  autocomplete?: string;
  placeholder?: string;
  maxlength?: number;
  min?: number;
  max?: number;
  step?: string;
  /** The submitted value wins after an error. */
  value?: string;
  inputmode?: string;
  pattern?: string;
  /** Screen readers only: a table row names its control. */
  hideLabel?: boolean;
}

let seq = 0;

/** `prefix` keeps ids unique across forms on one page. */
export class Fields {
  readonly #values: Record<string, string>;
  readonly errors: Errors;
  readonly #prefix: string;
  constructor(values: Record<string, string> = {}, errors: Errors = {}, prefix = `f${++seq % 1000}`) {
    this.#values = values;
    this.errors = errors;
    this.#prefix = prefix;
  }

  id(name: string): string {
    return `${this.#prefix}-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  }

  value(name: string, fallback = ''): string {
    return this.#values[name] ?? fallback;
  }

  #described(name: string, hint?: string): { attrs: Html; after: Html } {
    const id = this.id(name);
    const err = this.errors[name];
    const ids = [hint ? `${id}-hint` : '', err ? `${id}-error` : ''].filter(Boolean).join(' ');
    return {
      attrs: html`${ids ? html` aria-describedby="${ids}"` : nothing}${err ? html` aria-invalid="true"` : nothing}`,
      after: html`${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : nothing}${err ? html`<p class="field-error" id="${id}-error">${err}</p>` : nothing}`,
    };
  }

  input(label: string, name: string, o: FieldOpts = {}): Html {
    const id = this.id(name);
    const d = this.#described(name, o.hint);
    const type = o.type ?? 'text';
    const value = type === 'password' ? '' : this.value(name, o.value ?? '');
    return html`<div class="field${this.errors[name] ? ' has-error' : ''}"><label for="${id}">${label}${o.required ? nothing : html` <span class="optional">(optional)</span>`}</label>
<input id="${id}" name="${name}" type="${type}" value="${value}"${o.required ? html` required` : nothing}${o.autocomplete ? html` autocomplete="${o.autocomplete}"` : nothing}${o.placeholder ? html` placeholder="${o.placeholder}"` : nothing}${o.maxlength ? html` maxlength="${o.maxlength}"` : nothing}${o.min !== undefined ? html` min="${o.min}"` : nothing}${o.max !== undefined ? html` max="${o.max}"` : nothing}${o.step ? html` step="${o.step}"` : nothing}${o.inputmode ? html` inputmode="${o.inputmode}"` : nothing}${o.pattern ? html` pattern="${o.pattern}"` : nothing}${d.attrs}>${d.after}</div>`;
  }

  textarea(label: string, name: string, o: FieldOpts & { rows?: number } = {}): Html {
    const id = this.id(name);
    const d = this.#described(name, o.hint);
    return html`<div class="field${this.errors[name] ? ' has-error' : ''}"><label for="${id}">${label}${o.required ? nothing : html` <span class="optional">(optional)</span>`}</label>
<textarea id="${id}" name="${name}" rows="${o.rows ?? 4}"${o.required ? html` required` : nothing}${o.maxlength ? html` maxlength="${o.maxlength}"` : nothing}${o.placeholder ? html` placeholder="${o.placeholder}"` : nothing}${d.attrs}>${this.value(name, o.value ?? '')}</textarea>${d.after}</div>`;
  }

  select(label: string, name: string, options: readonly (string | { value: string; label: string })[], o: FieldOpts = {}): Html {
    const id = this.id(name);
    const d = this.#described(name, o.hint);
    const current = this.value(name, o.value ?? '');
    const opts = options.map((x) => (typeof x === 'string' ? { value: x, label: x } : x));
    return html`<div class="field${this.errors[name] ? ' has-error' : ''}"><label for="${id}"${o.hideLabel ? html` class="sr-only"` : nothing}>${label}</label>
<select id="${id}" name="${name}"${o.required ? html` required` : nothing}${d.attrs}>${opts.map((x) => html`<option value="${x.value}"${x.value === current ? html` selected` : nothing}>${x.label}</option>`)}</select>${d.after}</div>`;
  }

  checkbox(label: string, name: string, o: { checked?: boolean; hint?: string; value?: string } = {}): Html {
    const id = this.id(name);
    const d = this.#described(name, o.hint);
    const submitted = Object.keys(this.#values).length > 0;
    const checked = submitted ? this.#values[name] !== undefined : o.checked === true;
    return html`<div class="field check${this.errors[name] ? ' has-error' : ''}"><input id="${id}" name="${name}" type="checkbox" value="${o.value ?? 'on'}"${checked ? html` checked` : nothing}${d.attrs}><label for="${id}">${label}</label>${d.after}</div>`;
  }

  /** Every error at the top, each linked to its field. */
  summary(): Html {
    const entries = Object.entries(this.errors);
    if (entries.length === 0) return nothing;
    return html`<div class="alert error" role="alert"><p><strong>That did not work.</strong></p><ul>${entries.map(([k, v]) =>
      k === '_form' ? html`<li>${v}</li>` : html`<li><a href="#${this.id(k)}">${v}</a></li>`,
    )}</ul></div>`;
  }
}

/** `inline` forms sit inside table cells. */
export function form(token: string, action: string, body: Html, o: { inline?: boolean; label?: string; id?: string } = {}): Html {
  return html`<form method="post" action="${action}"${o.inline ? html` class="inline"` : nothing}${o.label ? html` aria-label="${o.label}"` : nothing}${o.id ? html` id="${o.id}"` : nothing}>${csrfInput(token)}${body}</form>`;
}

/** Revoke, resend, publish… */
export function button(token: string, action: string, label: string, o: { danger?: boolean; name?: string; value?: string; title?: string } = {}): Html {
  return form(
    token,
    action,
    html`<button type="submit"${o.danger ? html` class="danger"` : nothing}${o.name ? html` name="${o.name}" value="${o.value ?? ''}"` : nothing}${o.title ? html` aria-label="${o.title}"` : nothing}>${label}</button>`,
    { inline: true },
  );
}
