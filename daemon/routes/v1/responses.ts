import { Hono } from 'hono';
import { parseResponsesRequest } from '../../../core/gateway/responses/request.ts';
import { toResponsesEnvelope } from '../../../core/gateway/responses/response.ts';
import { formatSse } from '../../../core/gateway/responses/sse.ts';
import { responsesEventStream } from '../../../core/gateway/responses/stream.ts';
import type { GatewayRuntime } from '../../../core/gateway/runtime.ts';
import type { CallContext } from '../../../core/gateway/service.ts';
import { readJsonValue } from '../../http/json-body.ts';
import type { AppEnv } from '../../types.ts';
import { SSE_HEADERS, sseBody } from './sse.ts';

/** Stateless Responses: translated onto chat and back (core/gateway/responses). */
export function responsesRoutes(rt: GatewayRuntime): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/responses', async (c) => {
    const t0 = performance.now();
    const p = c.get('principal');
    const { chat, meta } = parseResponsesRequest(await readJsonValue(c));
    const admission = await rt.quota.admit(p);
    c.set('rateHeaders', admission.headers);
    const ctx: CallContext = { principal: p, signal: c.req.raw.signal, source: 'responses', requestId: c.get('requestId') };
    if (meta.stream) {
      const s = await rt.gateway.chatStream(ctx, { ...chat, stream_options: { include_usage: true } }, admission);
      rt.metrics.overhead('responses.stream').observe((performance.now() - t0 - s.upstreamMs) / 1000);
      // Responses streams end with response.completed (or .failed): no [DONE] marker.
      return new Response(sseBody(responsesEventStream(s.stream, meta), formatSse, { log: { logger: rt.gateway.deps.log, requestId: c.get('requestId') } }), {
        status: 200,
        headers: { ...SSE_HEADERS, 'x-svc-model': s.model.id },
      });
    }
    const r = await rt.gateway.chat(ctx, chat, admission);
    rt.metrics.overhead('responses').observe((performance.now() - t0 - r.upstreamMs) / 1000);
    return c.json(toResponsesEnvelope(r.result.completion, meta), 200, { 'x-svc-model': r.model.id });
  });
  return app;
}
