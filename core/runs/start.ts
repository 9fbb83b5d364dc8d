import { runnableTarget, type TargetAccount } from '../agents/access.ts';
import type { AgentVersion } from '../agents/types.ts';
import type { Resolved } from '../gateway/catalogue.ts';
import { forbidden, notFound } from '../kernel/errors.ts';
import { atLeast } from '../accounts/roles.ts';
import { newTimeId, randomPoolBytes } from '../kernel/ids.ts';
import type { Queryable } from '../store/types.ts';
import { ownedConversation } from '../conversations/repo.ts';
import { appendMessage, createConversation, history, type ConversationMessage } from './conversations.ts';
import { buildMessages } from './messages.ts';
import { ledgerModelStep, type LedgeredCall } from './steps.ts';
import type { RunDeps } from './deps.ts';
import { addEvents, type NewEvent } from './repo/events.ts';
import { insertRun, setWorker } from './repo/runs.ts';
import type { RunRow } from './types.ts';

export interface StartInput {
  agentId: string;
  userId: string;
  inputText: string;
  conversation?: boolean | undefined;
  conversationId?: string | undefined;
}

export const newClaimToken = () => randomPoolBytes(16).toString('base64url');

/** One 404 for every invisible case, so nothing can be probed; 403 below member.
 * Checked again at each approval. */
export async function mayRun(q: Queryable, agentId: string, userId: string): Promise<{ version: AgentVersion; account: TargetAccount | null }> {
  // The same statement reads the caller's role and the version's provider account.
  const found = await runnableTarget(q, agentId, userId);
  if (!found) throw notFound('Agent');
  // Viewers read; running an agent takes the member role in its workspace (DESIGN: roles).
  if (!atLeast(found.role, 'member')) throw forbidden('Running an agent needs the member role (or higher) in its workspace; viewers can read runs only.');
  return found;
}

/** Everything checked before a run exists: visible agent, valid target, caller's conversation. */
export async function prepareRun(deps: RunDeps, input: StartInput): Promise<AgentVersion> {
  return (await prepareRunTarget(deps, input)).version;
}

/** prepareRun plus the target, so the executor need not read them again. */
export async function prepareRunTarget(deps: RunDeps, input: StartInput): Promise<{ version: AgentVersion; target: Resolved }> {
  const { version, account } = await mayRun(deps.db, input.agentId, input.userId);
  const target = await deps.resolve(version, account); // 400 naming providerAccountId or model
  if (input.conversationId && !(await ownedConversation(deps.db, input.conversationId, input.userId, input.agentId))) throw notFound('Conversation');
  return { version, target };
}

/** One transaction; `extra` (the queue's job insert) runs inside it. Queued runs
 * get their token and clock at the claim. */
export async function insertNewRun(
  deps: RunDeps,
  version: AgentVersion,
  input: StartInput,
  mode: { status: 'running' | 'queued'; durable: boolean; runId?: string; conversationId?: string; workerId?: string },
  extra?: (q: Queryable, run: RunRow) => Promise<void | readonly NewEvent[]>,
): Promise<RunRow> {
  const now = new Date(deps.clock.now()).toISOString();
  return deps.db.tx(async (q) => {
    let conversationId = input.conversationId ?? null;
    if (!conversationId && input.conversation) {
      conversationId = await createConversation(q, { id: mode.conversationId, workspaceId: version.workspaceId, userId: input.userId, agentId: input.agentId, title: input.inputText, nowIso: now });
    }
    const running = mode.status === 'running';
    const run: RunRow = {
      id: mode.runId ?? newTimeId('run', deps.clock.now()),
      agent_id: input.agentId,
      agent_version: version.version,
      workspace_id: version.workspaceId,
      user_id: input.userId,
      conversation_id: conversationId,
      status: mode.status,
      input_text: input.inputText,
      output_text: null,
      error_message: null,
      error_code: null,
      approval_id: null,
      durable: mode.durable ? 1 : 0,
      claim_token: running ? newClaimToken() : null,
      created_at: now,
      started_at: running ? now : null,
      running_since: running ? now : null,
      finished_at: null,
    };
    await insertRun(q, run);
    if (mode.workerId) await setWorker(q, run.id, mode.workerId);
    if (conversationId) await appendMessage(q, conversationId, { role: 'user', content: input.inputText, runId: run.id, nowIso: now });
    const more = await extra?.(q, run);
    await addEvents(q, run.id, [['run.created', { agentVersion: version.version, durable: mode.durable }], [running ? 'run.started' : 'run.queued', {}], ...(more ?? [])], now, { fresh: true });
    return run;
  });
}

/** One transaction: rate-limit hit, run, and the first call's ledger row, committed before
 * the call as the ledger requires. Pass `first` to executeRun. */
export async function insertRunningRun(
  deps: RunDeps,
  prepared: { version: AgentVersion; target: Resolved },
  input: StartInput,
  takeHit: (q: Queryable) => Promise<void>,
): Promise<{ run: RunRow; first: { call: LedgeredCall; previous: ConversationMessage[] } }> {
  const { version, target } = prepared;
  const runId = newTimeId('run', deps.clock.now());
  const previous = input.conversationId ? await history(deps.db, input.conversationId, runId) : [];
  const messages = buildMessages(version, previous, input.inputText, []);
  let call: LedgeredCall | undefined;
  const run = await insertNewRun(deps, version, input, { status: 'running', durable: false, runId }, async (q, r) => {
    await takeHit(q);
    const l = await ledgerModelStep(q, { deps, run: r, token: r.claim_token! }, target, messages, 1, deps.clock.now());
    call = l.call;
    return [l.event];
  });
  return { run, first: { call: call!, previous } };
}
