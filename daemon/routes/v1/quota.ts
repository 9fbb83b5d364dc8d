import { Hono } from 'hono';
import type { Core } from '../../../core/index.ts';
import type { GatewayRuntime } from '../../../core/gateway/runtime.ts';
import { badRequest } from '../../../core/kernel/errors.ts';
import { usageByDayAndModel } from '../../../core/usage/repo.ts';
import type { AppEnv } from '../../types.ts';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function quotaRoutes(rt: GatewayRuntime, core: Core): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/quota', async (c) => {
    const p = c.get('principal');
    c.set('rateHeaders', await rt.quota.headersFor(p));
    const v = await rt.quota.view(p);
    return c.json({ object: 'quota', workspace_id: p.workspaceId, user_id: p.userId, key_id: p.credentialId, ...v });
  });

  /** Default: the last 30 days, the whole member (`?scope=key`: this key). */
  app.get('/usage', async (c) => {
    const p = c.get('principal');
    c.set('rateHeaders', await rt.quota.headersFor(p));
    const today = new Date(core.clock.now()).toISOString().slice(0, 10);
    const to = c.req.query('to') ?? today;
    const from = c.req.query('from') ?? new Date(Date.parse(to) - 29 * 86_400_000).toISOString().slice(0, 10);
    if (!DAY.test(from) || !DAY.test(to) || from > to) throw badRequest('invalid_request', 'from and to must be YYYY-MM-DD dates with from ≤ to.', 'from');
    const scope = c.req.query('scope') ?? 'member';
    if (scope !== 'member' && scope !== 'key') throw badRequest('invalid_request', 'scope must be member or key.', 'scope');
    await rt.usage.flush(); // read-your-writes: rows still batched in memory are counted
    const rows = await usageByDayAndModel(core.db, {
      workspaceId: p.workspaceId!,
      ...(scope === 'key' ? { credentialId: p.credentialId } : { userId: p.userId }),
      fromDay: from,
      toDay: to,
    });
    const totals = { requests: 0, input_tokens: 0, cached_tokens: 0, output_tokens: 0, reasoning_tokens: 0, total_tokens: 0 };
    for (const r of rows) for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += Number(r[k]);
    return c.json({ object: 'usage', scope, from, to, totals, data: rows.map((r) => ({ ...r, requests: Number(r.requests) })) });
  });
  return app;
}
