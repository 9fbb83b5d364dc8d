import { notFound } from '../kernel/errors.ts';
import type { Queryable } from '../store/types.ts';
import { MILESTONES, workspaceIds, workspacesReaching } from './repo.ts';

/**
 * Public (SPEC): ids and four booleans only; milestones in docs/public-endpoints.md.
 * Grouped queries, never one per workspace.
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

/** All workspaces, or only `only`; oldest first. */
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
