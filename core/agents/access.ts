import { atLeast, type Role } from '../accounts/roles.ts';
import { AppError, notFound } from '../kernel/errors.ts';
import type { Queryable } from '../store/types.ts';
import { agentInWorkspace, agentVisibleTo, runnableTargetRow, runnableVersionRow } from './repo.ts';
import { toAgent, toVersion } from './rows.ts';
import type { Agent, AgentVersion } from './types.ts';

/** Who acts, in which workspace (the session's active one), with which role there. */
export interface Caller {
  userId: string;
  workspaceId: string;
  role: Role;
}

/** Admins and owners manage every agent of the workspace, so they see them all. */
export const seesAll = (c: Caller) => atLeast(c.role, 'admin');

/** Writes need the member role (viewers read), and then the agent's owner or an admin+. */
export const canManage = (c: Caller, a: Agent) => atLeast(c.role, 'admin') || (atLeast(c.role, 'member') && a.ownerUserId === c.userId);

/**
 * The agent as the caller may see it, in the caller's active workspace. Invisible and missing are
 * the same 404, so ids of other people's private agents reveal nothing.
 */
export async function visibleAgent(q: Queryable, c: Caller, id: string): Promise<Agent> {
  const row = seesAll(c) ? await agentInWorkspace(q, id, c.workspaceId) : await agentVisibleTo(q, id, c.workspaceId, c.userId);
  if (!row) throw notFound('Agent');
  return toAgent(row);
}

/** The agent if the caller may change it: 404 when they cannot see it, 403 when they only see it. */
export async function managedAgent(q: Queryable, c: Caller, id: string): Promise<Agent> {
  const a = await visibleAgent(q, c, id);
  if (!canManage(c, a)) throw new AppError('forbidden', "Only the agent's owner (member role or higher) or a workspace admin or owner may change this agent.");
  return a;
}

/**
 * The version a run of `agentId` by `userId` executes: the latest published one, when the agent is
 * not deleted and the user owns it, or it is shared with them or with the whole workspace — and in
 * every case the user is still a member of the agent's workspace (a removed member keeps neither
 * their own agents nor direct shares). Undefined otherwise; the run API answers 404 for all of these
 * alike, never saying which.
 */
export async function runnableVersion(q: Queryable, agentId: string, userId: string): Promise<AgentVersion | undefined> {
  const row = await runnableVersionRow(q, agentId, userId);
  return row && toVersion(row);
}

/** The provider account fields a run start checks (see checkVersionTarget), read with the version. */
export interface TargetAccount {
  id: string;
  slug: string;
  enabled: boolean;
}

/**
 * runnableVersion plus what a run start checks next, in the same statement: the caller's role in
 * the agent's workspace (from the membership row the visibility join already reads) and the
 * version's provider account (`null` when it is missing or deleted). One round trip instead of three.
 */
export async function runnableTarget(q: Queryable, agentId: string, userId: string): Promise<{ version: AgentVersion; role: Role; account: TargetAccount | null } | undefined> {
  const row = await runnableTargetRow(q, agentId, userId);
  if (!row) return undefined;
  const account = row.pa_id === null ? null : { id: row.pa_id, slug: row.pa_slug!, enabled: Number(row.pa_enabled) === 1 };
  return { version: toVersion(row), role: row.m_role, account };
}
