import { membership } from '../accounts/workspaces.ts';
import type { Clock } from '../kernel/clock.ts';
import { AppError } from '../kernel/errors.ts';
import type { Db } from '../store/types.ts';
import { managedAgent, type Caller } from './access.ts';
import * as repo from './repo.ts';

export type ShareTarget = { userId: string } | { workspace: true };

/** Who an agent is shared with, beside its owner. */
export interface Shares {
  agentId: string;
  /** Every member of the agent's workspace may run it. */
  workspace: boolean;
  /** Users it is shared with one by one, oldest share first. */
  userIds: string[];
}

interface Deps {
  db: Db;
  clock: Clock;
}

export async function sharesOf(deps: Deps, c: Caller, id: string): Promise<Shares> {
  const a = await managedAgent(deps.db, c, id);
  return read(deps, a.id);
}

async function read(deps: Deps, id: string): Promise<Shares> {
  const workspace = await repo.sharedWithWorkspace(deps.db, id);
  return { agentId: id, workspace, userIds: await repo.shareUserIds(deps.db, id) };
}

/** Shares with one member of the agent's workspace, or with all of it. Sharing twice is a no-op. */
export async function shareAgent(deps: Deps, c: Caller, id: string, target: ShareTarget): Promise<Shares> {
  const a = await managedAgent(deps.db, c, id);
  if ('workspace' in target) {
    await repo.setSharedWithWorkspace(deps.db, a.id, true);
  } else {
    // Same answer for an unknown user and a user of another workspace: ids reveal nothing.
    if (!(await membership(deps.db, a.workspaceId, target.userId))) {
      throw new AppError('not_a_member', 'userId must be a member of the agent\'s workspace; GET /api/app/members lists them.', { field: 'userId', status: 400 });
    }
    await repo.insertShare(deps.db, a.id, target.userId, new Date(deps.clock.now()).toISOString());
  }
  return read(deps, a.id);
}

/** Removes a share; removing one that does not exist is a no-op (so a removed member's share can go too). */
export async function unshareAgent(deps: Deps, c: Caller, id: string, target: ShareTarget): Promise<Shares> {
  const a = await managedAgent(deps.db, c, id);
  if ('workspace' in target) await repo.setSharedWithWorkspace(deps.db, a.id, false);
  else await repo.deleteShare(deps.db, a.id, target.userId);
  return read(deps, a.id);
}
