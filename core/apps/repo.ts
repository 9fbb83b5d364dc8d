import { prepared, type Queryable, type SqlValue } from '../store/types.ts';

/**
 * The only SQL on the app tables (apps, app_versions, app_files). Writes made for a run are fenced
 * on its claim token like every executor write (core/runs/repo/runs.ts): an executor that lost the run
 * stores nothing.
 */

const OWNED_RUN = 'SELECT 1 FROM runs WHERE id = ? AND claim_token = ? AND status = ?';

export interface AppRow {
  id: string;
  workspace_id: string;
  run_id: string;
  title: string;
  latest_version: number;
  created_at: string;
}

/** The app of this title in the run, if one was made before. */
export async function appByTitle(q: Queryable, runId: string, title: string): Promise<AppRow | undefined> {
  return q.one<AppRow>('SELECT id, workspace_id, run_id, title, latest_version, created_at FROM apps WHERE run_id = ? AND title = ?', [runId, title]);
}

/** A new app at version 1, only while the run is owned by `token`; false when it is not. */
export async function insertApp(q: Queryable, token: string, r: AppRow): Promise<boolean> {
  const res = await q.run(
    `INSERT INTO apps (id, workspace_id, run_id, seq, title, latest_version, created_at)
     SELECT ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM apps WHERE run_id = ?), ?, 1, ? WHERE EXISTS (${OWNED_RUN})`,
    [r.id, r.workspace_id, r.run_id, r.run_id, r.title, r.created_at, r.run_id, token, 'running'],
  );
  return res.changes === 1;
}

/** The next version number of an existing app of the run (fenced); undefined when not owned. */
export async function bumpVersion(q: Queryable, token: string, appId: string, runId: string): Promise<number | undefined> {
  const row = await q.one<{ latest_version: number }>(
    `UPDATE apps SET latest_version = latest_version + 1 WHERE id = ? AND run_id = ? AND EXISTS (${OWNED_RUN}) RETURNING latest_version`,
    [appId, runId, runId, token, 'running'],
  );
  return row === undefined ? undefined : Number(row.latest_version);
}

export async function insertVersion(q: Queryable, v: { appId: string; version: number; entry: string; fileCount: number; totalBytes: number; createdAt: string }): Promise<void> {
  await q.run('INSERT INTO app_versions (app_id, version, entry, file_count, total_bytes, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
    v.appId, v.version, v.entry, v.fileCount, v.totalBytes, v.createdAt,
  ]);
}

const FILES_PER_INSERT = 50;

export async function insertFiles(q: Queryable, appId: string, version: number, files: readonly { path: string; content: Buffer }[]): Promise<void> {
  for (let i = 0; i < files.length; i += FILES_PER_INSERT) {
    const chunk = files.slice(i, i + FILES_PER_INSERT);
    const params: SqlValue[] = [];
    for (const f of chunk) params.push(appId, version, f.path, f.content.length, f.content);
    await q.run(`INSERT INTO app_files (app_id, version, path, size, content) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?)').join(', ')}`, params);
  }
}

export interface RunAppRow {
  app_id: string;
  version: number;
  title: string;
  entry: string;
  workspace_id: string;
  path: string;
  size: number;
}

/** Every version of every app of a run with its file list (no contents), oldest app first; the files
 * of a version in no particular order (collations differ between the stores). */
export async function appsOfRun(q: Queryable, runId: string): Promise<RunAppRow[]> {
  return q.all<RunAppRow>(
    `SELECT a.id AS app_id, v.version, a.title, v.entry, a.workspace_id, f.path, f.size
       FROM apps a
       JOIN app_versions v ON v.app_id = a.id
       JOIN app_files f ON f.app_id = v.app_id AND f.version = v.version
      WHERE a.run_id = ?
      ORDER BY a.seq, v.version`,
    [runId],
  );
}

export interface AppAccessRow {
  id: string;
  workspace_id: string;
  latest_version: number;
  user_id: string;
}

/** The app with its run's owner (who may read it), if it is in `workspaceId`. */
export async function appWithOwner(q: Queryable, appId: string, workspaceId: string): Promise<AppAccessRow | undefined> {
  return q.one<AppAccessRow>(
    'SELECT a.id, a.workspace_id, a.latest_version, r.user_id FROM apps a JOIN runs r ON r.id = a.run_id WHERE a.id = ? AND a.workspace_id = ?',
    [appId, workspaceId],
  );
}

/** The entry file's path of a version, when the version exists in that workspace. */
export async function versionEntry(q: Queryable, appId: string, version: number, workspaceId: string): Promise<string | undefined> {
  const row = await q.one<{ entry: string }>(
    'SELECT v.entry FROM app_versions v JOIN apps a ON a.id = v.app_id WHERE v.app_id = ? AND v.version = ? AND a.workspace_id = ?',
    [appId, version, workspaceId],
  );
  return row?.entry;
}

// The preview's hot statement (one per file served that is not cached).
const FILE = prepared(
  'app_file',
  'SELECT f.content FROM app_files f JOIN apps a ON a.id = f.app_id WHERE f.app_id = ? AND f.version = ? AND f.path = ? AND a.workspace_id = ?',
);

/** One file's bytes, when the file, version and app exist in that workspace. */
export async function fileContent(q: Queryable, appId: string, version: number, path: string, workspaceId: string): Promise<Buffer | undefined> {
  const row = await q.one<{ content: Buffer | Uint8Array }>(FILE, [appId, version, path, workspaceId]);
  if (row === undefined) return undefined;
  return Buffer.isBuffer(row.content) ? row.content : Buffer.from(row.content);
}
