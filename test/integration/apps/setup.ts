// Shared setup for the generated-app tests: the run test server (real store, fake model, manual
// clock) with an agent that has create_app, and helpers to make an app through a real run, mint a
// preview link over /api/app, and send raw requests with any Host header (fetch cannot set Host).
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { Dialect } from '../../../core/store/types.ts';
import { startRuns, type Res, type RunsEnv } from '../runs/setup.ts';

export const PREVIEW_ORIGIN = 'http://preview.localhost:8484';
export const PREVIEW_HOST = 'preview.localhost:8484';

export interface AppsEnv {
  r: RunsEnv;
  token: string;
  agentId: string;
  /** A run whose model calls create_app with these arguments (then answers); its read body. */
  makeApp(args: Record<string, unknown>): Promise<{ runId: string; read: any; toolOutput: string }>;
  /** POST /api/app/apps/:appId/preview-links as the run's owner (the member). */
  link(appId: string, body?: unknown, who?: Who, ws?: string): Promise<Res>;
  raw(path: string, opts?: RawOptions): Promise<RawRes>;
  close(): Promise<void>;
}

export type Who = 'owner' | 'admin' | 'member' | 'viewer' | 'outsider';

export interface RawOptions {
  host?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  port?: number;
}
export interface RawRes {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
}

export async function startApps(store: Dialect, env: Record<string, string> = {}): Promise<AppsEnv> {
  const r = await startRuns({ store, env: { SERVICE_PREVIEW_ORIGIN: PREVIEW_ORIGIN, ...env } });
  const token = await r.token(r.g.people.member);
  const agentId = await r.agent(r.g.people.member, { instructions: 'Make apps.', tools: [{ type: 'create_app' }] });
  const port = Number(new URL(r.g.base).port);
  let calls = 0;
  return {
    r,
    token,
    agentId,
    async makeApp(args) {
      const id = `call_app_${++calls}`;
      r.g.openai.once({ toolCalls: [{ id, name: 'create_app', arguments: JSON.stringify(args) }] });
      r.g.openai.once({ text: 'Done.' });
      const s = await r.start(token, agentId, { inputText: 'make an app' });
      assert.equal(s.status, 201, s.text);
      assert.equal(s.body.status, 'completed', s.text);
      const read = await r.read(token, agentId, s.body.runId);
      assert.equal(read.status, 200, read.text);
      const step = (read.body.steps as any[]).find((x) => x.kind === 'tool');
      return { runId: s.body.runId, read: read.body, toolOutput: step.output as string };
    },
    link: (appId, body, who = 'member', ws) => r.app(r.g.people[who], 'POST', `/api/app/apps/${appId}/preview-links`, body, ws),
    raw: (path, o = {}) =>
      new Promise<RawRes>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: o.port ?? port, path, method: o.method ?? 'GET', agent: false, headers: { host: o.host ?? PREVIEW_HOST, ...o.headers } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d: Buffer) => chunks.push(d));
          res.on('end', () => {
            const body = Buffer.concat(chunks);
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
          });
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(o.body);
      }),
    close: () => r.close(),
  };
}

/** The path part of a preview URL (`/p/{token}/{entry}`). */
export const pathOf = (url: string) => new URL(url).pathname;
/** The token of a preview URL. */
export const tokenOf = (url: string) => pathOf(url).split('/')[2]!;
