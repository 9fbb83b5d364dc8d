import { Hono } from 'hono';
import { checkChatRequest } from '../../../core/gateway/chat-request.ts';
import type { GatewayRuntime } from '../../../core/gateway/runtime.ts';
import { readJsonValue } from '../../http/json-body.ts';
import type { AppEnv } from '../../types.ts';

/** POST /api/v1/router: the routing decision for a chat request, without serving it. */
export function routerRoutes(rt: GatewayRuntime): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/router', async (c) => {
    const p = c.get('principal');
    const req = checkChatRequest(await readJsonValue(c));
    c.set('rateHeaders', await rt.quota.headersFor(p));
    return c.json({ object: 'router.decision', model: req.model, ...(await rt.gateway.decide(p.workspaceId!, req)) });
  });
  return app;
}
