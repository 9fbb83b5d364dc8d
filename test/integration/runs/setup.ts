// Shared setup for the run API tests: a running gateway (real server, real store, fake model
// upstream, manual clock) plus helpers that go through HTTP the way a client would — agents made
// and published over /api/app, access tokens issued over /api/app/access-tokens, runs over
// /api/agents with `Authorization: Bearer svc_pat_…`.
import assert from 'node:assert/strict';
import type { Dialect } from '../../../core/store/types.ts';
import type { RunsService } from '../../../core/runs/service.ts';
import type { Person } from '../people.ts';
import { startGateway, type Gateway } from '../gateway/harness.ts';

export const MINUTE = 60_000;

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RunsEnv {
  g: Gateway;
  rt: RunsService;
  /** Id of the provider account `fake` (models fake/gpt-test, fake/text-embed). */
  fakeAccount: string;
  /** A session-authenticated /api/app call as `who` in the operator workspace (or `ws`). */
  app(who: Person, method: string, path: string, body?: unknown, ws?: string): Promise<Res>;
  /** A new access token (svc_pat_…) for `who`. */
  token(who: Person): Promise<string>;
  /** Creates and publishes an agent owned by `who`; returns its id. */
  agent(who: Person, over?: Record<string, unknown>, opts?: { publish?: boolean; ws?: string }): Promise<string>;
  start(token: string, agentId: string, body?: Record<string, unknown>, headers?: Record<string, string>): Promise<Res>;
  read(token: string, agentId: string, runId: string): Promise<Res>;
  list(token: string, agentId: string): Promise<Res>;
  decide(token: string, agentId: string, runId: string, approvalId: string, decision: string): Promise<Res>;
  close(): Promise<void>;
}

async function call(url: string, init: RequestInit): Promise<Res> {
  const r = await fetch(url, init);
  const text = await r.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: r.status, headers: r.headers, body, text };
}

const jsonInit = (method: string, body: unknown, headers: Record<string, string>): RequestInit => ({
  method,
  headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

export async function startRuns(opts: { store?: Dialect; env?: Record<string, string>; watchIntervalMs?: number } = {}): Promise<RunsEnv> {
  const g = await startGateway({
    ...(opts.store ? { store: opts.store } : {}),
    // Local test servers stand in for the internet; the default limit would trip long files.
    env: { SERVICE_TOOL_HTTP_ALLOW_PRIVATE: 'true', RATE_LIMIT_CHAT_PER_MINUTE: '10000', ...opts.env },
    // A short watcher interval: the 15-minute limit is noticed within ms of the clock passing it.
    services: { runs: { watchIntervalMs: opts.watchIntervalMs ?? 5 } },
  });
  const rt = g.services.runs;
  const app: RunsEnv['app'] = (who, method, path, body, ws = g.people.workspace) =>
    call(g.base + path, jsonInit(method, body, who.headers({ workspace: ws })));
  const accounts = await app(g.people.owner, 'GET', '/api/app/provider-accounts');
  const fakeAccount = (accounts.body.data as { id: string; slug: string }[]).find((a) => a.slug === 'fake')!.id;
  const bearerInit = (token: string, method: string, body?: unknown, headers: Record<string, string> = {}) =>
    jsonInit(method, body, { authorization: `Bearer ${token}`, ...headers });
  return {
    g,
    rt,
    fakeAccount,
    app,
    async token(who) {
      // Access tokens act as the user in any workspace; issue them from the person's own workspace.
      const r = await app(who, 'POST', '/api/app/access-tokens', { name: 'runs test' }, who.ownWorkspace);
      assert.equal(r.status, 201, r.text);
      assert.match(r.body.token, /^svc_pat_/);
      return r.body.token as string;
    },
    async agent(who, over = {}, o = {}) {
      const ws = o.ws ?? g.people.workspace;
      const r = await app(who, 'POST', '/api/app/agents', { name: 'Runner', instructions: 'Be brief.', providerAccountId: fakeAccount, model: 'fake/gpt-test', ...over }, ws);
      assert.equal(r.status, 201, r.text);
      if (o.publish ?? true) {
        const p = await app(who, 'POST', `/api/app/agents/${r.body.id}/publish`, undefined, ws);
        assert.equal(p.status, 201, p.text);
      }
      return r.body.id as string;
    },
    start: (token, agentId, body = { inputText: 'hello' }, headers = {}) => call(`${g.base}/api/agents/${agentId}/runs`, bearerInit(token, 'POST', body, headers)),
    read: (token, agentId, runId) => call(`${g.base}/api/agents/${agentId}/runs/${runId}`, bearerInit(token, 'GET')),
    list: (token, agentId) => call(`${g.base}/api/agents/${agentId}/runs`, bearerInit(token, 'GET')),
    decide: (token, agentId, runId, approvalId, decision) =>
      call(`${g.base}/api/agents/${agentId}/runs/${runId}/approvals/${approvalId}`, bearerInit(token, 'POST', { decision })),
    close: () => g.close(),
  };
}

/** Waits (bounded) until `cond` holds; the fake and the executor run on the same event loop. */
export async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** A tool call the fake asks for: http_request GET `url`. */
export const httpCall = (url: string, id = 'call_1') => ({ id, name: 'http_request', arguments: JSON.stringify({ method: 'GET', url }) });
