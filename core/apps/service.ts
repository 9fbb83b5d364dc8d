import type { KeyObject } from 'node:crypto';
import type { Clock } from '../kernel/clock.ts';
import type { Config, Secrets } from '../kernel/config/index.ts';
import { notFound } from '../kernel/errors.ts';
import { newId } from '../kernel/ids.ts';
import { addEvent } from '../runs/repo/events.ts';
import { Fenced } from '../runs/types.ts';
import type { Db, Queryable } from '../store/types.ts';
import { appByTitle, appsOfRun, appWithOwner, bumpVersion, insertApp, insertFiles, insertVersion, versionEntry } from './repo.ts';
import { previewKey, signPreviewToken } from './token.ts';
import { validateApp, type AppInput } from './validate.ts';

/**
 * Generated apps (docs/preview.md): immutable versions on their run, served only from the
 * preview origin. The same title again is the next version.
 */

export interface StoredApp {
  appId: string;
  version: number;
  title: string;
  entry: string;
  fileCount: number;
  totalBytes: number;
}

export type AppResult = { ok: true; app: StoredApp } | { ok: false; problem: string };

/** The run an app is written for (the tools' ToolRunContext fits). */
export interface AppRun {
  runId: string;
  workspaceId: string;
  claimToken: string;
  db: Db;
  clock: Clock;
}

/** A broken rule is a `problem` for the model; throws Fenced. */
export async function appFromFiles(run: AppRun, input: AppInput): Promise<AppResult> {
  const v = validateApp(input);
  if (!v.ok) return v;
  const { title, entry, files, totalBytes } = v.app;
  const now = new Date(run.clock.now()).toISOString();
  const stored = await run.db.tx(async (q) => {
    const existing = await appByTitle(q, run.runId, title);
    let appId: string;
    let version: number;
    if (existing) {
      const next = await bumpVersion(q, run.claimToken, existing.id, run.runId);
      if (next === undefined) throw new Fenced(run.runId);
      [appId, version] = [existing.id, next];
    } else {
      appId = newId('app');
      version = 1;
      const row = { id: appId, workspace_id: run.workspaceId, run_id: run.runId, title, latest_version: 1, created_at: now };
      if (!(await insertApp(q, run.claimToken, row))) throw new Fenced(run.runId);
    }
    await insertVersion(q, { appId, version, entry, fileCount: files.length, totalBytes, createdAt: now });
    await insertFiles(q, appId, version, files);
    // The run read trusts this event: same transaction as the rows.
    await addEvent(q, run.runId, APP_EVENT, { appId, version, title }, now);
    return { appId, version };
  });
  return { ok: true, app: { ...stored, title, entry, fileCount: files.length, totalBytes } };
}

/** Says the run has (another version of) an app. */
export const APP_EVENT = 'app.created';

export interface RunApp {
  appId: string;
  version: number;
  title: string;
  entry: string;
  files: { path: string; size: number }[];
}

/** Oldest first; paths and sizes, no contents. */
export async function runApps(q: Queryable, runId: string): Promise<(RunApp & { workspaceId: string })[]> {
  const out: (RunApp & { workspaceId: string })[] = [];
  for (const r of await appsOfRun(q, runId)) {
    let last = out.at(-1);
    if (!last || last.appId !== r.app_id || last.version !== Number(r.version)) {
      out.push((last = { appId: r.app_id, version: Number(r.version), title: r.title, entry: r.entry, files: [], workspaceId: r.workspace_id }));
    }
    last.files.push({ path: r.path, size: Number(r.size) });
  }
  // By code unit, the same on both stores.
  for (const a of out) a.files.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  return out;
}

export interface PreviewLinkDeps {
  key: KeyObject;
  origin: string;
  ttlS: number;
  clock: Clock;
}

export function previewLinkDeps(config: Pick<Config, 'SERVICE_PREVIEW_ORIGIN' | 'SERVICE_PREVIEW_LINK_TTL_S'>, secrets: Pick<Secrets, 'SERVICE_PREVIEW_SECRET'>, clock: Clock): PreviewLinkDeps {
  return { key: previewKey(secrets.SERVICE_PREVIEW_SECRET), origin: new URL(config.SERVICE_PREVIEW_ORIGIN).origin, ttlS: config.SERVICE_PREVIEW_LINK_TTL_S, clock };
}

/** The URL path of a file inside an app, each segment percent-encoded. */
export const encodeAppPath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/** `{PREVIEW_ORIGIN}/p/{token}/{entry}` */
export function mintPreviewLink(d: PreviewLinkDeps, a: { appId: string; version: number; workspaceId: string; entry: string }): { url: string; expiresAt: string } {
  const exp = Math.floor(d.clock.now() / 1000) + d.ttlS;
  const token = signPreviewToken(d.key, { appId: a.appId, version: a.version, workspaceId: a.workspaceId, exp });
  return { url: `${d.origin}/p/${token}/${encodeAppPath(a.entry)}`, expiresAt: new Date(exp * 1000).toISOString() };
}

/** The run read's rule: the run's owner, in the app's workspace; else 404. */
export async function createPreviewLink(
  d: PreviewLinkDeps & { db: Queryable },
  caller: { userId: string; workspaceId: string },
  appId: string,
  version?: number,
): Promise<{ url: string; expiresAt: string }> {
  const app = await appWithOwner(d.db, appId, caller.workspaceId);
  if (!app || app.user_id !== caller.userId) throw notFound('App');
  const v = version ?? Number(app.latest_version);
  const entry = await versionEntry(d.db, appId, v, caller.workspaceId);
  if (entry === undefined) throw notFound('App version');
  return mintPreviewLink(d, { appId, version: v, workspaceId: caller.workspaceId, entry });
}

/** For share links: the share is the authorisation. */
export async function runAppsWithLinks(d: PreviewLinkDeps & { db: Queryable }, runId: string) {
  return (await runApps(d.db, runId)).map(({ workspaceId, ...a }) => ({ ...a, preview: mintPreviewLink(d, { ...a, workspaceId }) }));
}
