import { Hono } from 'hono';
import { forbidden } from '../../core/kernel/errors.ts';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import type { Role } from '../../core/accounts/roles.ts';
import { toAppError } from '../http/errors.ts';
import type { AppEnv } from '../types.ts';
import { webAssets } from './assets.ts';
import { loadSession, may, pageState, type Session, type WebContext } from './context.ts';
import { readForm, type Form } from './form.ts';
import { html } from './html.ts';
import { renderPage, type PageOptions } from './layout.ts';

type SignedIn = (c: WebContext, s: Session) => Promise<Response> | Response;
type SignedInPost = (c: WebContext, s: Session, form: Form) => Promise<Response> | Response;
type Anyone = (c: WebContext, s: Session | undefined) => Promise<Response> | Response;
type AnyonePost = (c: WebContext, s: Session | undefined, form: Form) => Promise<Response> | Response;

/** Route registration with the checks built in. */
export interface Web {
  core: Core;
  services: Services;
  page(c: WebContext, o: PageOptions): Promise<Response>;
  /** Others are sent to sign in and brought back. */
  get(path: string, h: SignedIn): void;
  /** A form POST of a signed-in user, CSRF checked. */
  post(path: string, h: SignedInPost): void;
  publicGet(path: string, h: Anyone): void;
  publicPost(path: string, h: AnyonePost): void;
}

export function requireRole(s: Session, min: Role): void {
  if (!may(s, min)) throw forbidden(`This needs the ${min} role or higher in ${s.workspace.name}.`);
}

/** Errors are HTML pages, never the API's JSON; unknown ones a 500. */
export function createWeb(core: Core, services: Services): { web: Web; app: Hono<AppEnv> } {
  const app = new Hono<AppEnv>();
  const page = async (c: WebContext, o: PageOptions) => renderPage(core, c, await webAssets(), o);

  const fail = async (c: WebContext, err: unknown): Promise<Response> => {
    const e = toAppError(err);
    if (e.status >= 500) core.log.error(e.kind === 'unexpected' ? 'unhandled error in a page' : e.message, { requestId: c.get('requestId'), code: e.code, error: err });
    const message = e.status >= 500 ? `Something went wrong on the server (request ${c.get('requestId')}).` : e.message;
    for (const [k, v] of Object.entries(e.headers ?? {})) c.header(k, v);
    const title = e.status === 404 ? 'Not found' : e.status === 403 ? 'Not allowed' : e.status >= 500 ? 'Server error' : 'Request refused';
    return page(c, { title, status: e.status, body: html`<div class="alert error" role="alert">${message}</div><p><a href="/">Back to the start page</a></p>` });
  };
  const guard = (fn: (c: WebContext) => Promise<Response> | Response) => async (c: WebContext) => {
    try {
      return await fn(c);
    } catch (err) {
      return fail(c, err);
    }
  };
  const toSignIn = (c: WebContext, status: 302 | 303) => {
    pageState(c);
    const next = c.req.method === 'GET' ? c.req.path + (new URL(c.req.url).search || '') : '/';
    return c.redirect(`/sign-in?next=${encodeURIComponent(next)}`, status);
  };

  const web: Web = {
    core,
    services,
    page,
    get(path, h) {
      app.get(path, guard(async (c) => {
        const s = await loadSession(core, services, c);
        return s ? h(c, s) : toSignIn(c, 302);
      }));
    },
    post(path, h) {
      app.post(path, guard(async (c) => {
        const s = await loadSession(core, services, c);
        if (!s) return toSignIn(c, 303);
        return h(c, s, await readForm(core, c, s));
      }));
    },
    publicGet(path, h) {
      app.get(path, guard(async (c) => h(c, await loadSession(core, services, c))));
    },
    publicPost(path, h) {
      app.post(path, guard(async (c) => {
        const s = await loadSession(core, services, c);
        return h(c, s, await readForm(core, c, s));
      }));
    },
  };
  return { web, app };
}

