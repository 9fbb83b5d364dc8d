import { atLeast } from '../accounts/roles.ts';
import type { Caller } from '../agents/access.ts';
import { runnableVersion } from '../agents/access.ts';
import { issueToken, tokenHash, tokenPreview } from '../auth/tokens.ts';
import type { Clock } from '../kernel/clock.ts';
import type { Config } from '../kernel/config/index.ts';
import { AppError, notFound } from '../kernel/errors.ts';
import { newId } from '../kernel/ids.ts';
import type { Db, Queryable } from '../store/types.ts';
import * as repo from './repo.ts';
import type { WorkerRow } from './repo.ts';
import { checkSchedule } from './schedule.ts';
import { checkNotifyUrl } from './validate.ts';

/** Runs act as the owner. Owner and admin+ see a Worker, others get 404; changes need
 * the owner (member+) or an admin+ (docs/workers.md). */

export interface WorkerDeps {
  db: Db;
  clock: Clock;
  tokenKey: Buffer;
  config: Pick<Config, 'NODE_ENV' | 'SERVICE_TOOL_HTTP_ALLOW_PRIVATE'>;
}

export interface WorkerFields {
  name: string;
  agentId: string;
  inputTemplate: string;
  schedule?: string | null | undefined;
  notifyUrl?: string | null | undefined;
  enabled?: boolean | undefined;
}

export const view = (w: WorkerRow) => ({
  id: w.id,
  name: w.name,
  agentId: w.agent_id,
  ownerUserId: w.owner_user_id,
  inputTemplate: w.input_template,
  schedule: w.schedule,
  notifyUrl: w.notify_url,
  enabled: Boolean(Number(w.enabled)),
  webhookRefPreview: w.webhook_ref_preview,
  createdAt: w.created_at,
  updatedAt: w.updated_at,
});
export type WorkerView = ReturnType<typeof view>;

const iso = (d: WorkerDeps) => new Date(d.clock.now()).toISOString();

/** Runnable by the user the runs act as. */
async function checkAgent(q: Queryable, agentId: string, userId: string, workspaceId: string): Promise<void> {
  const v = await runnableVersion(q, agentId, userId);
  if (!v || v.workspaceId !== workspaceId) throw new AppError('not_found', 'Agent not found (it must be published and runnable by the Worker\'s owner).', { field: 'agentId' });
}

function normalise(d: WorkerDeps, f: Partial<WorkerFields>): Partial<WorkerFields> {
  const out = { ...f };
  if (typeof f.schedule === 'string') out.schedule = checkSchedule(f.schedule);
  if (typeof f.notifyUrl === 'string') out.notifyUrl = checkNotifyUrl(f.notifyUrl, d.config);
  return out;
}

export async function createWorker(d: WorkerDeps, c: Caller, body: WorkerFields): Promise<WorkerView & { token: string; webhookRef: string }> {
  if (!atLeast(c.role, 'member')) throw new AppError('forbidden', 'Creating a Worker needs the member role or higher.');
  const f = normalise(d, body) as WorkerFields;
  await checkAgent(d.db, f.agentId, c.userId, c.workspaceId);
  const ref = issueToken('webhook');
  const now = iso(d);
  const row: WorkerRow = {
    id: newId('wkr'), workspace_id: c.workspaceId, owner_user_id: c.userId, name: f.name, agent_id: f.agentId, input_template: f.inputTemplate,
    schedule: f.schedule ?? null, webhook_ref_hash: tokenHash(d.tokenKey, ref), webhook_ref_preview: tokenPreview(ref), notify_url: f.notifyUrl ?? null,
    enabled: f.enabled === false ? 0 : 1, created_at: now, updated_at: now,
  };
  await repo.insertWorker(d.db, row);
  // DESIGN: a created secret comes back once as `token`; `webhookRef` names the same value.
  return { ...view(row), token: ref, webhookRef: ref };
}

export async function listWorkers(d: WorkerDeps, c: Caller): Promise<WorkerView[]> {
  const all = atLeast(c.role, 'admin');
  const rows = await repo.workerRows(d.db, c.workspaceId, all ? undefined : c.userId);
  return rows.map(view);
}

/** The Worker as the caller may see it (owner or admin+), else 404. */
export async function visibleWorker(q: Queryable, c: Caller, id: string): Promise<WorkerRow> {
  const w = await repo.workerInWorkspace(q, id, c.workspaceId);
  if (!w || !(w.owner_user_id === c.userId || atLeast(c.role, 'admin'))) throw notFound('Worker');
  return w;
}

async function managedWorker(q: Queryable, c: Caller, id: string): Promise<WorkerRow> {
  const w = await visibleWorker(q, c, id);
  // Visible means owner or admin+; the owner also needs the member role still (a viewer reads).
  if (!atLeast(c.role, 'member')) {
    throw new AppError('forbidden', "Only the Worker's owner (member role or higher) or a workspace admin or owner may change it.");
  }
  return w;
}

export const getWorker = async (d: WorkerDeps, c: Caller, id: string) => view(await visibleWorker(d.db, c, id));

export async function updateWorker(d: WorkerDeps, c: Caller, id: string, patch: Partial<WorkerFields>): Promise<WorkerView> {
  const w = await managedWorker(d.db, c, id);
  const f = normalise(d, patch);
  // A new agent must be runnable by the owner: the runs act as them, whoever edits the Worker.
  if (f.agentId !== undefined && f.agentId !== w.agent_id) await checkAgent(d.db, f.agentId, w.owner_user_id, w.workspace_id);
  const next: WorkerRow = {
    ...w,
    name: f.name ?? w.name,
    agent_id: f.agentId ?? w.agent_id,
    input_template: f.inputTemplate ?? w.input_template,
    schedule: f.schedule === undefined ? w.schedule : f.schedule,
    notify_url: f.notifyUrl === undefined ? w.notify_url : f.notifyUrl,
    enabled: f.enabled === undefined ? w.enabled : f.enabled ? 1 : 0,
    updated_at: iso(d),
  };
  if (!(await repo.updateWorkerRow(d.db, id, next))) throw notFound('Worker');
  return view(next);
}

/** The ref hash goes, so the ref dies at once. */
export async function deleteWorker(d: WorkerDeps, c: Caller, id: string): Promise<void> {
  await managedWorker(d.db, c, id);
  const now = iso(d);
  await repo.softDeleteWorker(d.db, id, now);
}

/** A new ref, shown once; the old one stops matching in the same statement. */
export async function rotateWebhookRef(d: WorkerDeps, c: Caller, id: string): Promise<WorkerView & { token: string; webhookRef: string }> {
  const w = await managedWorker(d.db, c, id);
  const ref = issueToken('webhook');
  const now = iso(d);
  if (!(await repo.setWebhookRef(d.db, id, tokenHash(d.tokenKey, ref), tokenPreview(ref), now))) throw notFound('Worker');
  return { ...view({ ...w, webhook_ref_preview: tokenPreview(ref), updated_at: now }), token: ref, webhookRef: ref };
}
