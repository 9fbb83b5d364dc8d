import type { Queryable } from '../store/types.ts';

/** The only SQL on workers. */

export interface WorkerRow {
  id: string;
  workspace_id: string;
  owner_user_id: string;
  name: string;
  agent_id: string;
  input_template: string;
  schedule: string | null;
  webhook_ref_hash: string | null;
  webhook_ref_preview: string | null;
  notify_url: string | null;
  enabled: number | boolean;
  created_at: string;
  updated_at: string;
}

/** What a tick or a webhook needs to start a Worker's run. */
export interface WorkerTarget {
  id: string;
  owner_user_id: string;
  agent_id: string;
  input_template: string;
}

const COLS = 'id, workspace_id, owner_user_id, name, agent_id, input_template, schedule, webhook_ref_hash, webhook_ref_preview, notify_url, enabled, created_at, updated_at';

export async function insertWorker(q: Queryable, row: WorkerRow): Promise<void> {
  await q.run(
    `INSERT INTO workers (${COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [row.id, row.workspace_id, row.owner_user_id, row.name, row.agent_id, row.input_template, row.schedule, row.webhook_ref_hash, row.webhook_ref_preview, row.notify_url, row.enabled, row.created_at, row.updated_at],
  );
}

/** Live Workers of the workspace, newest first; only `ownerUserId`'s when given. */
export async function workerRows(q: Queryable, workspaceId: string, ownerUserId?: string): Promise<WorkerRow[]> {
  const all = ownerUserId === undefined;
  return q.all<WorkerRow>(
    `SELECT ${COLS} FROM workers WHERE workspace_id = ? AND deleted_at IS NULL${all ? '' : ' AND owner_user_id = ?'} ORDER BY created_at DESC, id DESC`,
    all ? [workspaceId] : [workspaceId, ownerUserId],
  );
}

export async function workerInWorkspace(q: Queryable, id: string, workspaceId: string): Promise<WorkerRow | undefined> {
  return q.one<WorkerRow>(`SELECT ${COLS} FROM workers WHERE id = ? AND workspace_id = ? AND deleted_at IS NULL`, [id, workspaceId]);
}

/** Replaces the editable fields of a live Worker; false when there is none. */
export async function updateWorkerRow(
  q: Queryable,
  id: string,
  w: Pick<WorkerRow, 'name' | 'agent_id' | 'input_template' | 'schedule' | 'notify_url' | 'enabled' | 'updated_at'>,
): Promise<boolean> {
  const r = await q.run(
    'UPDATE workers SET name = ?, agent_id = ?, input_template = ?, schedule = ?, notify_url = ?, enabled = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL',
    [w.name, w.agent_id, w.input_template, w.schedule, w.notify_url, Number(w.enabled), w.updated_at, id],
  );
  return r.changes === 1;
}

/** Soft delete; drops the ref hash so the ref is dead at once. */
export async function softDeleteWorker(q: Queryable, id: string, at: string): Promise<void> {
  await q.run('UPDATE workers SET deleted_at = ?, updated_at = ?, webhook_ref_hash = NULL, enabled = 0 WHERE id = ? AND deleted_at IS NULL', [at, at, id]);
}

/** Replaces the webhook ref of a live Worker; false when there is none. */
export async function setWebhookRef(q: Queryable, id: string, hash: string, preview: string, at: string): Promise<boolean> {
  const r = await q.run('UPDATE workers SET webhook_ref_hash = ?, webhook_ref_preview = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL', [
    hash, preview, at, id,
  ]);
  return r.changes === 1;
}

/** The enabled live Worker whose webhook ref has this hash. */
export async function workerByRefHash(q: Queryable, hash: string): Promise<WorkerTarget | undefined> {
  return q.one<WorkerTarget>(
    'SELECT id, owner_user_id, agent_id, input_template FROM workers WHERE webhook_ref_hash = ? AND deleted_at IS NULL AND enabled = ?',
    [hash, 1],
  );
}

/** The Worker if it is live, enabled and scheduled. */
export async function scheduledWorker(q: Queryable, id: string): Promise<WorkerTarget | undefined> {
  return q.one<WorkerTarget>(
    'SELECT id, owner_user_id, agent_id, input_template FROM workers WHERE id = ? AND deleted_at IS NULL AND enabled = ? AND schedule IS NOT NULL',
    [id, 1],
  );
}

/** Every live, enabled Worker with a schedule. */
export async function scheduledWorkers(q: Queryable): Promise<{ id: string; schedule: string; updated_at: string }[]> {
  return q.all<{ id: string; schedule: string; updated_at: string }>(
    'SELECT id, schedule, updated_at FROM workers WHERE schedule IS NOT NULL AND enabled = 1 AND deleted_at IS NULL',
  );
}

/** The live Worker's notification URL; undefined when the Worker is gone. */
export async function notifyUrlOf(q: Queryable, id: string): Promise<string | null | undefined> {
  return (await q.one<{ notify_url: string | null }>('SELECT notify_url FROM workers WHERE id = ? AND deleted_at IS NULL', [id]))?.notify_url;
}

/** The live Worker's id and notification URL. */
export async function notifyTarget(q: Queryable, id: string): Promise<{ id: string; notify_url: string | null } | undefined> {
  return q.one<{ id: string; notify_url: string | null }>('SELECT id, notify_url FROM workers WHERE id = ? AND deleted_at IS NULL', [id]);
}
