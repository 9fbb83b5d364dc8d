import { Hono } from 'hono';
import { checkChatRequest } from '../../../core/gateway/chat-request.ts';
import type { GatewayRuntime } from '../../../core/gateway/runtime.ts';
import type { CallContext } from '../../../core/gateway/service.ts';
import { RAW_JSON, type ChatChunk, type ChatCompletion } from '../../../core/wire/openai.ts';
import type { Principal } from '../../../core/credentials/types.ts';
import { readJsonValue } from '../../http/json-body.ts';
import type { AppEnv } from '../../types.ts';
import { SSE_HEADERS, sseBody } from './sse.ts';

export const SSE_DONE = 'data: [DONE]\n\n';
/** The upstream's own text when the chunk is unchanged (RAW_JSON). */
export const sseChunk = (chunk: ChatChunk) => `data: ${chunk[RAW_JSON] ?? JSON.stringify(chunk)}\n\n`;

export type ChatAnswer =
  | { stream: true; chunks: AsyncIterable<ChatChunk>; headers: Record<string, string> }
  /** `raw`: an OpenAI upstream's own body, never re-serialised. */
  | { stream: false; raw: string | undefined; completion: ChatCompletion; headers: Record<string, string> };

/** Shared by Hono and the fast lane, so both behave alike. */
export async function answerChat(rt: GatewayRuntime, p: Principal, body: unknown, signal: AbortSignal, t0: number, onAdmitted: (rateHeaders: Record<string, string>) => void, requestId?: string): Promise<ChatAnswer> {
  const req = checkChatRequest(body);
  const admission = await rt.quota.admit(p);
  onAdmitted(admission.headers);
  const ctx: CallContext = { principal: p, signal, source: 'chat', requestId };
  if (req.stream) {
    const s = await rt.gateway.chatStream(ctx, req, admission);
    rt.metrics.overhead('chat.stream').observe((performance.now() - t0 - s.upstreamMs) / 1000);
    return { stream: true, chunks: s.stream, headers: { 'x-svc-model': s.model.id } };
  }
  const r = await rt.gateway.chat(ctx, req, admission);
  rt.metrics.overhead('chat').observe((performance.now() - t0 - r.upstreamMs) / 1000);
  return { stream: false, raw: r.result.raw, completion: r.result.completion, headers: { 'x-svc-model': r.model.id } };
}

export function chatRoutes(rt: GatewayRuntime): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/chat/completions', async (c) => {
    const t0 = performance.now();
    const a = await answerChat(rt, c.get('principal'), await readJsonValue(c), c.req.raw.signal, t0, (h) => c.set('rateHeaders', h), c.get('requestId'));
    if (a.stream) return new Response(sseBody(a.chunks, sseChunk, { done: SSE_DONE, log: { logger: rt.gateway.deps.log, requestId: c.get('requestId') } }), { status: 200, headers: { ...SSE_HEADERS, ...a.headers } });
    if (a.raw !== undefined) return c.body(a.raw, 200, { 'content-type': 'application/json', ...a.headers });
    return c.json(a.completion, 200, a.headers);
  });
  return app;
}
