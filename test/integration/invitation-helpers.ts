// Helpers for the invitation tests: accounts and sessions made through core/accounts (the same
// functions the register/login routes use), a request helper with session cookies and CSRF, and a
// real local HTTP server standing in for the email relay.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { register } from '../../core/accounts/register.ts';
import { createSession } from '../../core/accounts/sessions.ts';
import { addMember } from '../../core/accounts/workspaces.ts';
import type { Role } from '../../core/accounts/roles.ts';
import type { Core } from '../../core/index.ts';
import type { App } from '../../daemon/app.ts';
import { accountsDeps } from '../../core/services.ts';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../daemon/middleware/session.ts';

export interface Caller {
  userId: string;
  email: string;
  /** The caller's own workspace. */
  ownWorkspaceId: string;
  cookie: string;
  csrf: string;
}

/** Registers an account (bootstrap, or via open mode so no invitation is needed) and signs it in. */
export async function account(core: Core, email: string, password = 'correct horse battery'): Promise<Caller> {
  const view = await register({ ...accountsDeps(core), registrationMode: 'open' }, { email, password, name: email.split('@')[0]! });
  const c: Caller = { userId: view.user.id, email, ownWorkspaceId: view.workspaces[0]!.id, cookie: '', csrf: '' };
  await signIn(core, c);
  return c;
}

/** A fresh session at the current (manual) time, for tests that move the clock past the old one. */
export async function signIn(core: Core, c: Caller): Promise<void> {
  const s = await createSession(accountsDeps(core), c.userId);
  c.cookie = `${SESSION_COOKIE}=${s.token}; ${CSRF_COOKIE}=${s.csrf}`;
  c.csrf = s.csrf;
}

/** An account that also belongs to `workspaceId` with `role`. */
export async function memberOf(core: Core, workspaceId: string, email: string, role: Role): Promise<Caller> {
  const c = await account(core, email);
  await addMember(core.db, workspaceId, c.userId, role, new Date(core.clock.now()).toISOString());
  return c;
}

export interface CallOptions {
  as?: Caller;
  workspaceId?: string;
  body?: unknown;
  /** false: leave out x-csrf-token; a string: send that value instead. */
  csrf?: boolean | string;
  headers?: Record<string, string>;
}

export async function call(app: App, method: string, path: string, opts: CallOptions = {}): Promise<{ status: number; text: string; json: any }> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.as) {
    headers.cookie = opts.as.cookie;
    if (opts.csrf !== false) headers['x-csrf-token'] = typeof opts.csrf === 'string' ? opts.csrf : opts.as.csrf;
  }
  if (opts.workspaceId) headers['x-workspace-id'] = opts.workspaceId;
  if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await app.request(path, {
    method,
    headers,
    ...(opts.body === undefined ? {} : { body: typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) }),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

export interface RelayRequest {
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Relay {
  url: string;
  requests: RelayRequest[];
  /** Status the relay answers with (default 202). */
  status: number;
  /** While set, requests wait for `release()` before being answered. */
  hold: boolean;
  release(): void;
  /** Resolves once `n` requests have arrived (bounded). */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A real HTTP server on port 0 that records what svc POSTs to the email relay. */
export async function startRelay(): Promise<Relay> {
  const waiting: Array<() => void> = [];
  const relay: Relay = {
    url: '',
    requests: [],
    status: 202,
    hold: false,
    release() {
      relay.hold = false;
      for (const w of waiting.splice(0)) w();
    },
    async waitFor(n, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (relay.requests.length < n) {
        if (Date.now() > deadline) throw new Error(`relay got ${relay.requests.length} of ${n} requests`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      relay.requests.push({ headers: req.headers, body });
      const answer = () => res.writeHead(relay.status).end();
      if (relay.hold) waiting.push(answer);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  relay.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/relay`;
  return relay;
}

/** Polls `probe` until it returns true (bounded): for outcomes produced off the request path. */
export async function eventually(probe: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
