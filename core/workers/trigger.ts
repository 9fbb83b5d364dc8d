import { agentByWebhookHash } from '../agents/repo.ts';
import type { AgentVersion } from '../agents/types.ts';
import { tokenHash, wellFormed } from '../auth/tokens.ts';
import { AppError, isAppError } from '../kernel/errors.ts';
import { nulRefused } from '../kernel/input-guard.ts';
import type { RunDeps } from '../runs/deps.ts';
import type { RunStartLimiter } from '../runs/ratelimit.ts';
import { prepareRun, type StartInput } from '../runs/start.ts';
import type { RunRow } from '../runs/types.ts';
import { workerByRefHash } from './repo.ts';
import { renderTemplate } from './template.ts';

/**
 * Inbound webhook triggers (`/api/public/webhooks/workers/:webhookRef`, legacy
 * `/api/public/webhooks/agents/:token`): the path credential is the only authorisation, and every
 * way of not matching — malformed, bad checksum, unknown, rotated, removed, disabled Worker, agent no
 * longer runnable by the user the run acts as — is one 404 with a byte-identical body. Shape and
 * checksum are checked before any lookup; the body is read only after the credential matched.
 */

/** Largest request body a trigger accepts, and the largest input it may render into. */
export const WEBHOOK_BODY_LIMIT = 64 * 1024;
export const MAX_INPUT = 100_000;

export const webhookNotFound = () => new AppError('not_found', 'Webhook not found.', { uniformBody: true });

export interface TriggerDeps {
  tokenKey: Buffer;
  runs: RunDeps;
  limiter: RunStartLimiter;
  start(version: AgentVersion, input: StartInput, limiter: RunStartLimiter, workerId?: string): Promise<{ run: RunRow; headers: Record<string, string> }>;
}

export interface Triggered {
  run: RunRow;
  headers: Record<string, string>;
}

/** prepareRun's "you cannot run this" answers (404, 403) become the uniform 404; a 400 about the
 * agent's provider target passes through — the caller holds a valid credential and can act on it. */
async function prepare(d: TriggerDeps, input: StartInput): Promise<AgentVersion> {
  try {
    return await prepareRun(d.runs, input);
  } catch (err) {
    if (isAppError(err) && (err.status === 404 || err.status === 403)) throw webhookNotFound();
    throw err;
  }
}

/** The rendered input becomes the run's input text: bounded, and without a NUL (core/kernel/input-guard.ts). */
function checkInput(text: string): void {
  if (text.length > MAX_INPUT) throw new AppError('payload_too_large', `The rendered input is ${text.length} characters; the limit is ${MAX_INPUT}.`);
  if (text.includes('\0')) throw nulRefused('The rendered input');
}

export async function triggerWorker(d: TriggerDeps, ref: string, readBody: () => Promise<string>): Promise<Triggered> {
  if (!wellFormed(ref, 'webhook')) throw webhookNotFound();
  const w = await workerByRefHash(d.runs.db, tokenHash(d.tokenKey, ref));
  if (!w) throw webhookNotFound();
  const inputText = renderTemplate(w.input_template, await readBody());
  checkInput(inputText);
  const input: StartInput = { agentId: w.agent_id, userId: w.owner_user_id, inputText };
  const version = await prepare(d, input);
  return d.start(version, input, d.limiter, w.id);
}

export async function triggerAgent(d: TriggerDeps, token: string, readBody: () => Promise<string>): Promise<Triggered> {
  if (!wellFormed(token, 'webhook')) throw webhookNotFound();
  const a = await agentByWebhookHash(d.runs.db, tokenHash(d.tokenKey, token));
  if (!a?.webhook_user_id) throw webhookNotFound();
  const inputText = await readBody();
  checkInput(inputText);
  const input: StartInput = { agentId: a.id, userId: a.webhook_user_id, inputText };
  const version = await prepare(d, input);
  return d.start(version, input, d.limiter);
}
