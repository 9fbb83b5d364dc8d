import type { Queryable, SqlValue } from '../store/types.ts';

/** Read-only report queries across tables, each grouped by workspace. */

export type Milestone = 'providerConnected' | 'agentPublished' | 'firstRunCompleted' | 'memberInvited';

const MILESTONE_SQL: Record<Milestone, string> = {
  providerConnected: 'SELECT DISTINCT workspace_id FROM provider_accounts WHERE deleted_at IS NULL',
  agentPublished: 'SELECT DISTINCT workspace_id FROM agents WHERE latest_version >= 1',
  firstRunCompleted: "SELECT DISTINCT workspace_id FROM runs WHERE status = 'completed'",
  memberInvited: 'SELECT DISTINCT workspace_id FROM invitations',
};
export const MILESTONES = Object.keys(MILESTONE_SQL) as Milestone[];

const params = (only: string | undefined): SqlValue[] => (only === undefined ? [] : [only]);

/** Workspace ids, oldest first: all, or only `only` if it exists. */
export async function workspaceIds(q: Queryable, only?: string): Promise<{ id: string }[]> {
  return q.all<{ id: string }>(`SELECT id FROM workspaces${only === undefined ? '' : ' WHERE id = ?'} ORDER BY created_at, id`, params(only));
}

/** The workspaces (all, or only `only`) that reached the milestone. */
export async function workspacesReaching(q: Queryable, m: Milestone, only?: string): Promise<{ workspace_id: string }[]> {
  const sql = MILESTONE_SQL[m];
  return q.all<{ workspace_id: string }>(only === undefined ? sql : `${sql} ${sql.includes(' WHERE ') ? 'AND' : 'WHERE'} workspace_id = ?`, params(only));
}
