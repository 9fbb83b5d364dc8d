import { Hono } from 'hono';
import { checkEmbeddingsRequest } from '../../../core/gateway/chat-request.ts';
import type { GatewayRuntime } from '../../../core/gateway/runtime.ts';
import { readJsonValue } from '../../http/json-body.ts';
import type { AppEnv } from '../../types.ts';

export function embeddingsRoutes(rt: GatewayRuntime): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/embeddings', async (c) => {
    const p = c.get('principal');
    const req = checkEmbeddingsRequest(await readJsonValue(c));
    const admission = await rt.quota.admit(p);
    c.set('rateHeaders', admission.headers);
    const r = await rt.gateway.embeddings({ principal: p, signal: c.req.raw.signal, source: 'embeddings', requestId: c.get('requestId') }, req, admission);
    return c.json(r.response, 200, { 'x-svc-model': r.model.id });
  });
  return app;
}
