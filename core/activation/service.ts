import { notFound } from '../kernel/errors.ts';
import type { Queryable } from '../store/types.ts';
import { MILESTONES, workspaceIds, workspacesReaching } from './repo.ts';

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

const NAMES: (keyof Milestones)[] = MILESTONES;

/** Summaries of the given workspaces (all when `only` is undefined), oldest workspace first. */
async function summaries(deps: ActivationDeps, only?: string): Promise<Activation[]> {
  const [workspaces, ...sets] = await Promise.all([
    workspaceIds(deps.db, only),
    ...NAMES.map((n) => (n === 'providerConnected' && deps.localTargetConfigured ? Promise.resolve(undefined) : workspacesReaching(deps.db, n, only))),
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
