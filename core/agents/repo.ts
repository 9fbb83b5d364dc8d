import type { Role } from '../accounts/roles.ts';
import type { Queryable } from '../store/types.ts';
import type { AgentRow, VersionRow } from './rows.ts';

/** The only SQL on agents, agent_versions and agent_shares. */

const AGENT_COLUMNS =
  'a.id, a.workspace_id, a.owner_user_id, a.name, a.instructions, a.provider_account_id, a.model, a.tools, a.settings, a.shared_with_workspace, a.latest_version, a.created_at, a.updated_at';
const VERSION_COLUMNS =
  'v.agent_id, a.workspace_id, v.version, v.name, v.instructions, v.provider_account_id, v.model, v.tools, v.settings, v.published_by, v.published_at';

/** Agents a user sees: their own, shared with them or with the workspace. */
const VISIBLE_TO_USER = `(a.owner_user_id = ? OR a.shared_with_workspace = 1
  OR EXISTS (SELECT 1 FROM agent_shares s WHERE s.agent_id = a.id AND s.user_id = ?))`;

export async function insertAgent(
  q: Queryable,
  r: Pick<AgentRow, 'id' | 'workspace_id' | 'owner_user_id' | 'name' | 'instructions' | 'provider_account_id' | 'model' | 'tools' | 'settings' | 'created_at'>,
): Promise<void> {
  await q.run(
    `INSERT INTO agents (id, workspace_id, owner_user_id, name, instructions, provider_account_id, model, tools, settings, shared_with_workspace, latest_version, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?)`,
    [r.id, r.workspace_id, r.owner_user_id, r.name, r.instructions, r.provider_account_id, r.model, r.tools, r.settings, r.created_at, r.created_at],
  );
}

/** A live agent of the workspace, whoever owns it. */
export async function agentInWorkspace(q: Queryable, id: string, workspaceId: string): Promise<AgentRow | undefined> {
  return q.one<AgentRow>(`SELECT ${AGENT_COLUMNS} FROM agents a WHERE a.id = ? AND a.workspace_id = ? AND a.deleted_at IS NULL`, [id, workspaceId]);
}

/** A live agent of the workspace, if `userId` sees it. */
export async function agentVisibleTo(q: Queryable, id: string, workspaceId: string, userId: string): Promise<AgentRow | undefined> {
  return q.one<AgentRow>(`SELECT ${AGENT_COLUMNS} FROM agents a WHERE a.id = ? AND a.workspace_id = ? AND a.deleted_at IS NULL AND ${VISIBLE_TO_USER}`, [
    id,
    workspaceId,
    userId,
    userId,
  ]);
}

/** Every live agent of the workspace, oldest first. */
export async function workspaceAgents(q: Queryable, workspaceId: string): Promise<AgentRow[]> {
  return q.all<AgentRow>(`SELECT ${AGENT_COLUMNS} FROM agents a WHERE a.workspace_id = ? AND a.deleted_at IS NULL ORDER BY a.created_at, a.id`, [workspaceId]);
}

/** The live agents of the workspace `userId` sees, oldest first. */
export async function agentsVisibleTo(q: Queryable, workspaceId: string, userId: string): Promise<AgentRow[]> {
  return q.all<AgentRow>(
    `SELECT ${AGENT_COLUMNS} FROM agents a WHERE a.workspace_id = ? AND a.deleted_at IS NULL AND ${VISIBLE_TO_USER} ORDER BY a.created_at, a.id`,
    [workspaceId, userId, userId],
  );
}

/** Replaces the draft of a live agent; false when there is none. */
export async function updateDraft(
  q: Queryable,
  id: string,
  d: Pick<AgentRow, 'name' | 'instructions' | 'provider_account_id' | 'model' | 'tools' | 'settings' | 'updated_at'>,
): Promise<boolean> {
  const r = await q.run(
    `UPDATE agents SET name = ?, instructions = ?, provider_account_id = ?, model = ?, tools = ?, settings = ?, updated_at = ?
      WHERE id = ? AND deleted_at IS NULL`,
    [d.name, d.instructions, d.provider_account_id, d.model, d.tools, d.settings, d.updated_at, id],
  );
  return r.changes === 1;
}

/** Soft delete; false when the agent was not live. */
export async function softDeleteAgent(q: Queryable, id: string, at: string): Promise<boolean> {
  const r = await q.run('UPDATE agents SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL', [at, id]);
  return r.changes === 1;
}

/** Next version number, taking the row's write lock; undefined if not live. */
export async function bumpLatestVersion(q: Queryable, id: string): Promise<number | undefined> {
  const bumped = await q.one<{ latest_version: number }>(
    'UPDATE agents SET latest_version = latest_version + 1 WHERE id = ? AND deleted_at IS NULL RETURNING latest_version',
    [id],
  );
  return bumped === undefined ? undefined : Number(bumped.latest_version);
}

/** Copies the draft as it stands into version `version`. */
export async function insertVersionFromDraft(q: Queryable, id: string, version: number, by: string, at: string): Promise<void> {
  await q.run(
    `INSERT INTO agent_versions (agent_id, version, name, instructions, provider_account_id, model, tools, settings, published_by, published_at)
           SELECT id, ?, name, instructions, provider_account_id, model, tools, settings, ?, ? FROM agents WHERE id = ?`,
    [version, by, at, id],
  );
}

export async function versionRow(q: Queryable, agentId: string, version: number): Promise<VersionRow | undefined> {
  return q.one<VersionRow>(`SELECT ${VERSION_COLUMNS} FROM agent_versions v JOIN agents a ON a.id = v.agent_id WHERE v.agent_id = ? AND v.version = ?`, [agentId, version]);
}

/** Published versions, newest first. */
export async function versionRows(q: Queryable, agentId: string): Promise<VersionRow[]> {
  return q.all<VersionRow>(`SELECT ${VERSION_COLUMNS} FROM agent_versions v JOIN agents a ON a.id = v.agent_id WHERE v.agent_id = ? ORDER BY v.version DESC`, [agentId]);
}

/** Latest published version `userId` may run (visible, still a member). */
export async function runnableVersionRow(q: Queryable, agentId: string, userId: string): Promise<VersionRow | undefined> {
  return q.one<VersionRow>(
    `SELECT ${VERSION_COLUMNS}
       FROM agents a
       JOIN agent_versions v ON v.agent_id = a.id AND v.version = a.latest_version
       JOIN memberships m ON m.workspace_id = a.workspace_id AND m.user_id = ?
      WHERE a.id = ? AND a.deleted_at IS NULL AND ${VISIBLE_TO_USER}`,
    [userId, agentId, userId, userId],
  );
}

export type RunnableTargetRow = VersionRow & { m_role: Role; pa_id: string | null; pa_slug: string | null; pa_enabled: number | null };

/** runnableVersionRow plus the caller's role and live provider account. */
export async function runnableTargetRow(q: Queryable, agentId: string, userId: string): Promise<RunnableTargetRow | undefined> {
  return q.one<RunnableTargetRow>(
    `SELECT ${VERSION_COLUMNS}, m.role AS m_role, pa.id AS pa_id, pa.slug AS pa_slug, pa.enabled AS pa_enabled
       FROM agents a
       JOIN agent_versions v ON v.agent_id = a.id AND v.version = a.latest_version
       JOIN memberships m ON m.workspace_id = a.workspace_id AND m.user_id = ?
       LEFT JOIN provider_accounts pa ON pa.id = v.provider_account_id AND pa.workspace_id = a.workspace_id AND pa.deleted_at IS NULL
      WHERE a.id = ? AND a.deleted_at IS NULL AND ${VISIBLE_TO_USER}`,
    [userId, agentId, userId, userId],
  );
}

/** Agents whose draft tools may hold credential headers. */
export async function agentToolsWithHeaders(q: Queryable): Promise<{ id: string; tools: string }[]> {
  return q.all<{ id: string; tools: string }>("SELECT id, tools FROM agents WHERE tools LIKE '%defaultHeaders%'");
}

/** Replaces the draft's tools if they are still `was`; the rows changed. */
export async function replaceAgentTools(q: Queryable, id: string, was: string, next: string): Promise<number> {
  return (await q.run('UPDATE agents SET tools = ? WHERE id = ? AND tools = ?', [next, id, was])).changes;
}

/** Versions whose tools may hold credential headers. */
export async function versionToolsWithHeaders(q: Queryable): Promise<{ agent_id: string; version: number; tools: string }[]> {
  return q.all<{ agent_id: string; version: number; tools: string }>("SELECT agent_id, version, tools FROM agent_versions WHERE tools LIKE '%defaultHeaders%'");
}

/** Replaces a version's tools if they are still `was`; the rows changed. */
export async function replaceVersionTools(q: Queryable, agentId: string, version: number, was: string, next: string): Promise<number> {
  return (await q.run('UPDATE agent_versions SET tools = ? WHERE agent_id = ? AND version = ? AND tools = ?', [next, agentId, version, was])).changes;
}

export async function sharedWithWorkspace(q: Queryable, id: string): Promise<boolean> {
  const a = await q.one<{ shared_with_workspace: number }>('SELECT shared_with_workspace FROM agents WHERE id = ?', [id]);
  return Number(a?.shared_with_workspace) === 1;
}

export async function setSharedWithWorkspace(q: Queryable, id: string, shared: boolean): Promise<void> {
  if (shared) await q.run('UPDATE agents SET shared_with_workspace = 1 WHERE id = ?', [id]);
  else await q.run('UPDATE agents SET shared_with_workspace = 0 WHERE id = ?', [id]);
}

/** Users the agent is shared with one by one, oldest share first. */
export async function shareUserIds(q: Queryable, agentId: string): Promise<string[]> {
  const users = await q.all<{ user_id: string }>('SELECT user_id FROM agent_shares WHERE agent_id = ? ORDER BY created_at, user_id', [agentId]);
  return users.map((u) => u.user_id);
}

/** Idempotent. */
export async function insertShare(q: Queryable, agentId: string, userId: string, at: string): Promise<void> {
  await q.run('INSERT INTO agent_shares (agent_id, user_id, created_at) VALUES (?, ?, ?) ON CONFLICT (agent_id, user_id) DO NOTHING', [agentId, userId, at]);
}

export async function deleteShare(q: Queryable, agentId: string, userId: string): Promise<void> {
  await q.run('DELETE FROM agent_shares WHERE agent_id = ? AND user_id = ?', [agentId, userId]);
}

export async function setWebhookToken(q: Queryable, agentId: string, hash: string, preview: string, userId: string): Promise<void> {
  await q.run('UPDATE agents SET webhook_token_hash = ?, webhook_token_preview = ?, webhook_user_id = ? WHERE id = ? AND deleted_at IS NULL', [
    hash, preview, userId, agentId,
  ]);
}

export async function clearWebhookToken(q: Queryable, agentId: string): Promise<void> {
  await q.run('UPDATE agents SET webhook_token_hash = NULL, webhook_token_preview = NULL, webhook_user_id = NULL WHERE id = ?', [agentId]);
}

/** The live agent whose legacy webhook token has this hash. */
export async function agentByWebhookHash(q: Queryable, hash: string): Promise<{ id: string; webhook_user_id: string | null } | undefined> {
  return q.one<{ id: string; webhook_user_id: string | null }>(
    'SELECT id, webhook_user_id FROM agents WHERE webhook_token_hash = ? AND deleted_at IS NULL',
    [hash],
  );
}
