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

/** Invisible and missing are one 404, so private ids reveal nothing. */
export async function visibleAgent(q: Queryable, c: Caller, id: string): Promise<Agent> {
  const row = seesAll(c) ? await agentInWorkspace(q, id, c.workspaceId) : await agentVisibleTo(q, id, c.workspaceId, c.userId);
  if (!row) throw notFound('Agent');
  return toAgent(row);
}

/** 404 when unseen, 403 when only seen. */
export async function managedAgent(q: Queryable, c: Caller, id: string): Promise<Agent> {
  const a = await visibleAgent(q, c, id);
  if (!canManage(c, a)) throw new AppError('forbidden', "Only the agent's owner (member role or higher) or a workspace admin or owner may change this agent.");
  return a;
}

/** Latest published, if owned or shared and the user is still a member (a removed
 * member keeps nothing); otherwise undefined, one 404 for every reason. */
export async function runnableVersion(q: Queryable, agentId: string, userId: string): Promise<AgentVersion | undefined> {
  const row = await runnableVersionRow(q, agentId, userId);
  return row && toVersion(row);
}

/** Read with the version, for checkVersionTarget. */
export interface TargetAccount {
  id: string;
  slug: string;
  enabled: boolean;
}

/** runnableVersion plus role and account in one round trip instead of three. */
export async function runnableTarget(q: Queryable, agentId: string, userId: string): Promise<{ version: AgentVersion; role: Role; account: TargetAccount | null } | undefined> {
  const row = await runnableTargetRow(q, agentId, userId);
  if (!row) return undefined;
  const account = row.pa_id === null ? null : { id: row.pa_id, slug: row.pa_slug!, enabled: Number(row.pa_enabled) === 1 };
  return { version: toVersion(row), role: row.m_role, account };
}
