import { atLeast } from '../accounts/roles.ts';
import type { Clock } from '../kernel/clock.ts';
import { AppError, conflict, notFound } from '../kernel/errors.ts';
import { newId } from '../kernel/ids.ts';
import type { ProviderAccountDeps } from '../provider-accounts/service.ts';
import { UniqueViolation, type Db } from '../store/types.ts';
import { managedAgent, seesAll, visibleAgent, type Caller } from './access.ts';
import * as repo from './repo.ts';
import { toAgent, toVersion } from './rows.ts';
import { checkDraftTarget } from './target.ts';
import { keepMaskedSecrets, maskToolSecrets, sealToolSecrets } from './tool-secrets.ts';
import type { Vault } from '../vault/index.ts';
import type { Agent, AgentTool, AgentVersion } from './types.ts';
import { validateSettings, validateTools, type ToolInput } from './validate.ts';

export { runnableVersion, type Caller } from './access.ts';
export { checkVersionTarget } from './target.ts';
export { shareAgent, unshareAgent, sharesOf, type ShareTarget, type Shares } from './shares.ts';

export interface AgentDeps {
  db: Db;
  clock: Clock;
  /** A draft may name only these. */
  accounts: ProviderAccountDeps;
}

export interface AgentInput {
  name: string;
  instructions: string;
  providerAccountId?: string | null | undefined;
  model?: string | null | undefined;
  tools?: ToolInput[] | undefined;
  settings?: unknown;
}

export type AgentPatch = Partial<AgentInput>;

const iso = (ms: number) => new Date(ms).toISOString();

// Readers see credential headers as previews only.
const shown = <T extends Agent | AgentVersion>(a: T): T => ({ ...a, tools: maskToolSecrets(a.tools) });

export async function createAgent(deps: AgentDeps, c: Caller, input: AgentInput): Promise<Agent> {
  if (!atLeast(c.role, 'member')) throw new AppError('forbidden', 'This needs the member role or higher in the workspace.');
  const pa = input.providerAccountId ?? null;
  const model = input.model ?? null;
  const tools = validateTools(input.tools ?? []);
  const settings = validateSettings(input.settings ?? {});
  await checkDraftTarget(deps.accounts, c.workspaceId, pa, model);
  const id = newId('agt');
  const now = iso(deps.clock.now());
  const stored = sealToolSecrets(deps.accounts.vault, id, tools);
  await repo.insertAgent(deps.db, {
    id, workspace_id: c.workspaceId, owner_user_id: c.userId, name: input.name, instructions: input.instructions,
    provider_account_id: pa, model, tools: JSON.stringify(stored), settings: JSON.stringify(settings), created_at: now,
  });
  return shown(await visibleAgent(deps.db, c, id));
}

export const getAgent = async (deps: AgentDeps, c: Caller, id: string): Promise<Agent> => shown(await visibleAgent(deps.db, c, id));

/** `all` (admin+, else ignored) includes others' private drafts. */
export async function listAgents(deps: AgentDeps, c: Caller, opts: { all?: boolean } = {}): Promise<Agent[]> {
  const rows = opts.all && seesAll(c) ? await repo.workspaceAgents(deps.db, c.workspaceId) : await repo.agentsVisibleTo(deps.db, c.workspaceId, c.userId);
  return rows.map((r) => shown(toAgent(r)));
}

/** Edits the draft only: published versions never change. Fields given replace the draft's. */
export async function updateAgent(deps: AgentDeps, c: Caller, id: string, patch: AgentPatch): Promise<Agent> {
  const a = await managedAgent(deps.db, c, id);
  const pa = patch.providerAccountId === undefined ? a.providerAccountId : patch.providerAccountId;
  const model = patch.model === undefined ? a.model : patch.model;
  // Validated in the clear, then sealed; resealing sealed tools is a no-op.
  const tools = sealToolSecrets(deps.accounts.vault, id, patch.tools === undefined ? a.tools : validateTools(keepMaskedSecrets(deps.accounts.vault, id, patch.tools, a.tools)));
  const settings = patch.settings === undefined ? a.settings : validateSettings(patch.settings);
  if (patch.providerAccountId !== undefined || patch.model !== undefined) await checkDraftTarget(deps.accounts, c.workspaceId, pa, model);
  const updated = await repo.updateDraft(deps.db, id, {
    name: patch.name ?? a.name, instructions: patch.instructions ?? a.instructions, provider_account_id: pa, model,
    tools: JSON.stringify(tools), settings: JSON.stringify(settings), updated_at: iso(deps.clock.now()),
  });
  if (!updated) throw notFound('Agent');
  return shown(await visibleAgent(deps.db, c, id));
}

/** Soft: runs and versions stay for the record. */
export async function deleteAgent(deps: AgentDeps, c: Caller, id: string): Promise<void> {
  await managedAgent(deps.db, c, id);
  if (!(await repo.softDeleteAgent(deps.db, id, iso(deps.clock.now())))) throw notFound('Agent');
}

/** Bumps the counter first to take the row lock, so concurrent publishes get N+1, N+2;
 * the primary key backs it up (409 after three tries). */
export async function publishAgent(deps: AgentDeps, c: Caller, id: string, check?: (draft: Agent) => Promise<void>): Promise<AgentVersion> {
  const draft = await managedAgent(deps.db, c, id);
  await check?.(draft);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await deps.db.tx(async (q) => {
        const version = await repo.bumpLatestVersion(q, id);
        if (version === undefined) throw notFound('Agent');
        await repo.insertVersionFromDraft(q, id, version, c.userId, iso(deps.clock.now()));
        const row = await repo.versionRow(q, id, version);
        return shown(toVersion(row!));
      });
    } catch (err) {
      if (!(err instanceof UniqueViolation)) throw err;
    }
  }
  throw conflict('publish_conflict', 'Another publish of this agent happened at the same moment; publish again.');
}

/** Published versions, newest first, to whoever sees the agent. */
export async function listVersions(deps: AgentDeps, c: Caller, id: string): Promise<AgentVersion[]> {
  await visibleAgent(deps.db, c, id);
  const rows = await repo.versionRows(deps.db, id);
  return rows.map((r) => shown(toVersion(r)));
}

export async function getVersion(deps: AgentDeps, c: Caller, id: string, version: number): Promise<AgentVersion> {
  await visibleAgent(deps.db, c, id);
  const row = await repo.versionRow(deps.db, id, version);
  if (!row) throw notFound('Agent version');
  return shown(toVersion(row));
}

/** Seals headers older svc stored in the clear; a row edited meanwhile is left alone. */
export async function sealStoredToolSecrets(db: Db, vault: Vault): Promise<number> {
  let n = 0;
  for (const a of await repo.agentToolsWithHeaders(db)) {
    const next = JSON.stringify(sealToolSecrets(vault, a.id, JSON.parse(a.tools) as AgentTool[]));
    if (next !== a.tools) n += await repo.replaceAgentTools(db, a.id, a.tools, next);
  }
  for (const v of await repo.versionToolsWithHeaders(db)) {
    const next = JSON.stringify(sealToolSecrets(vault, v.agent_id, JSON.parse(v.tools) as AgentTool[]));
    if (next !== v.tools) n += await repo.replaceVersionTools(db, v.agent_id, v.version, v.tools, next);
  }
  return n;
}
