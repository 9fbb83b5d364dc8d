import { notFound } from '../errors.ts';
import type { Queryable, SqlValue } from '../store/types.ts';

/**
 * Activation summaries (`GET /api/activation`, `/api/activation/:workspaceId`): public entry points
 * (SPEC "Entry points that accept a request without a session cookie"). An anonymous caller learns
 * the workspace ids and four booleans each — nothing else: no names, emails, counts or times.
 *
 * Milestones:
 * - providerConnected: a provider account not deleted (enabled or not), or the local target is
 *   configured (it is offered in every workspace);
 * - agentPublished: an agent was published (latest_version ≥ 1), even if deleted since;
 * - firstRunCompleted: a run reached `completed`;
 * - memberInvited: an invitation was created (whatever became of it).
 *
 * Cost: one query per milestone plus the workspace list, each grouped by workspace (never one
 * query per workspace), run concurrently.
 */

export interface Milestones {
  providerConnected: boolean;
  agentPublished: boolean;
  firstRunCompleted: boolean;
  memberInvited: boolean;
}

export interface Activation {
  workspaceId: string;
  activated: boolean;
  milestones: Milestones;
}

export interface ActivationDeps {
  db: Queryable;
  /** LOCAL_LLM_BASE_URL is set: every workspace has a provider. */
  localTargetConfigured: boolean;
}

const MILESTONE_SQL: Record<keyof Milestones, string> = {
  providerConnected: 'SELECT DISTINCT workspace_id FROM provider_accounts WHERE deleted_at IS NULL',
  agentPublished: 'SELECT DISTINCT workspace_id FROM agents WHERE latest_version >= 1',
  firstRunCompleted: "SELECT DISTINCT workspace_id FROM runs WHERE status = 'completed'",
  memberInvited: 'SELECT DISTINCT workspace_id FROM invitations',
};
const NAMES = Object.keys(MILESTONE_SQL) as (keyof Milestones)[];

/** Summaries of the given workspaces (all when `only` is undefined), oldest workspace first. */
async function summaries(deps: ActivationDeps, only?: string): Promise<Activation[]> {
  const filter = (sql: string) => (only === undefined ? sql : `${sql} ${sql.includes(' WHERE ') ? 'AND' : 'WHERE'} workspace_id = ?`);
  const params: SqlValue[] = only === undefined ? [] : [only];
  const [workspaces, ...sets] = await Promise.all([
    deps.db.all<{ id: string }>(`SELECT id FROM workspaces${only === undefined ? '' : ' WHERE id = ?'} ORDER BY created_at, id`, params),
    ...NAMES.map((n) => (n === 'providerConnected' && deps.localTargetConfigured ? Promise.resolve(undefined) : deps.db.all<{ workspace_id: string }>(filter(MILESTONE_SQL[n]), params))),
  ]);
  // undefined: the milestone holds for every workspace (the local target).
  const reached = sets.map((rows) => (rows === undefined ? undefined : new Set(rows.map((r) => r.workspace_id))));
  return workspaces.map(({ id }) => {
    const milestones = Object.fromEntries(NAMES.map((n, i) => [n, reached[i] === undefined || reached[i]!.has(id)])) as unknown as Milestones;
    return { workspaceId: id, activated: NAMES.every((n) => milestones[n]), milestones };
  });
}

export const listActivation = (deps: ActivationDeps) => summaries(deps);

export async function workspaceActivation(deps: ActivationDeps, workspaceId: string): Promise<Activation> {
  const [one] = await summaries(deps, workspaceId);
  if (!one) throw notFound('Workspace');
  return one;
}
