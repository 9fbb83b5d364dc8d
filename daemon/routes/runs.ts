import { Hono } from 'hono';
import * as z from 'zod';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { decideApproval } from '../../core/runs/approvals.ts';
import { executeRun } from '../../core/runs/executor.ts';
import { getRun } from '../../core/runs/repo/runs.ts';
import { listRuns } from '../../core/runs/read.ts';
import { readRunJson } from '../../core/runs/read-json.ts';
import { startQueuedRun, startRunInRequest } from '../../core/runs/service.ts';
import type { RunRow } from '../../core/runs/types.ts';
import { requireBearer } from '../middleware/bearer.ts';
import { readJson } from '../http/json-body.ts';
import type { AppEnv } from '../types.ts';

const MAX_INPUT = 100_000;
export const StartBody = z
  .strictObject({
    inputText: z.string().max(MAX_INPUT).optional(),
    input: z.string().max(MAX_INPUT).optional(),
    async: z.boolean().optional(),
    conversation: z.boolean().optional(),
    conversationId: z.string().min(1).max(64).optional(),
  })
  .refine((b) => b.inputText !== undefined || b.input !== undefined, { message: 'inputText (or input) is required', path: ['inputText'] })
  .refine((b) => !(b.inputText !== undefined && b.input !== undefined && b.inputText !== b.input), { message: 'give inputText or input, not two different texts', path: ['input'] })
  .refine((b) => !(b.conversation === true && b.conversationId !== undefined), { message: 'give conversation: true (new) or conversationId (continue), not both', path: ['conversationId'] });
export const DecisionBody = z.strictObject({ decision: z.enum(['approve', 'reject']) });

/** The start answer: SPEC's fields, present only when they apply. */
export function startView(r: RunRow) {
  return {
    runId: r.id,
    conversationId: r.conversation_id,
    status: r.status,
    ...(r.output_text !== null ? { outputText: r.output_text } : {}),
    ...(r.status === 'waiting_input' && r.approval_id ? { approvalId: r.approval_id } : {}),
    ...(r.status !== 'completed' && r.error_message ? { error: r.error_message, errorCode: r.error_code } : {}),
  };
}

/** Bearer access tokens only; starts are rate limited per user, reads are not. */
export function runRoutes(core: Core, services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', requireBearer(core, services, 'access'));
  const runs = () => services.runs;

  app.post('/:agentId/runs', async (c) => {
    const userId = c.get('principal').userId;
    const agentId = c.req.param('agentId');
    const body = await readJson(c, StartBody);
    const input = { agentId, userId, inputText: (body.inputText ?? body.input)!, conversation: body.conversation, conversationId: body.conversationId };
    const wantsAsync = body.async === true || /\brespond-async\b/i.test(c.req.header('prefer') ?? '');
    const setHeaders = (h: Record<string, string>) => {
      for (const [k, v] of Object.entries(h)) c.header(k, v);
    };
    if (wantsAsync) return c.json(startView(await startQueuedRun(runs(), input, setHeaders)), 202);
    return c.json(startView(await startRunInRequest(runs(), input, setHeaders)), 201);
  });

  app.get('/:agentId/runs', async (c) => c.json({ data: await listRuns(runs().deps, c.req.param('agentId'), c.get('principal').userId) }));

  // Written from the stored JSON without a parse (read-json.ts).
  app.get('/:agentId/runs/:runId', async (c) =>
    c.body(await readRunJson(runs().deps, c.req.param('agentId'), c.req.param('runId'), c.get('principal').userId), 200, { 'content-type': 'application/json' }),
  );

  app.post('/:agentId/runs/:runId/approvals/:approvalId', async (c) => {
    const { deps } = runs();
    const { decision } = await readJson(c, DecisionBody);
    const d = { agentId: c.req.param('agentId'), runId: c.req.param('runId'), approvalId: c.req.param('approvalId'), userId: c.get('principal').userId, decision };
    // Queued runs resume on a worker; in-request runs here, as they started.
    const outcome = await decideApproval(deps, d, runs().requeue);
    if (outcome.resumed) await executeRun(deps, d.runId, outcome.token);
    return c.json(startView((await getRun(deps.db, d.runId))!));
  });
  return app;
}
