import type { Clock } from '../kernel/clock.ts';
import type { Principal } from '../credentials/types.ts';
import { AppError } from '../kernel/errors.ts';
import type { Logger } from '../kernel/log.ts';
import { withSafeRetry } from '../providers/retry.ts';
import { UpstreamError, type ChatResult, type ProviderEngine } from '../providers/types.ts';
import type { QuotaService, Admission } from '../quota/service.ts';
import type { UsageRecorder } from '../usage/recorder.ts';
import type { Catalogue, ExposedModel, Resolved } from './catalogue.ts';
import type { GatewayMetrics } from './metrics.ts';
import { isConduit, route, routeError, type RouteDecision } from './router/route.ts';
import type { ConduitSettings } from './settings.ts';
import { splitsOf, type ChatChunk, type ChatRequest, type EmbeddingsRequest, type EmbeddingsResponse, type UsageSplits } from '../wire/openai.ts';
import { streamUsage } from './estimate.ts';
import { Tracked, type StreamEnd } from './tracked.ts';

export interface GatewayDeps {
  engine: ProviderEngine;
  catalogue: Catalogue;
  quota: QuotaService;
  usage: UsageRecorder;
  conduit: ConduitSettings;
  metrics: GatewayMetrics;
  clock: Clock;
  log: Logger;
}

export interface CallContext {
  principal: Principal;
  signal: AbortSignal;
  /** chat | responses | embeddings | agent_run */
  source: string;
  /** The HTTP request's id, for log lines about this call. */
  requestId?: string;
}

/** What every served call returns besides its body. */
export interface Served {
  model: ExposedModel;
  admission: Admission;
  /** Set when service/conduit chose the model. */
  decision: RouteDecision | undefined;
  /** Time spent waiting on the upstream (ms), for the overhead metric. */
  upstreamMs: number;
}

const ZERO: UsageSplits = { inputTokens: 0, cachedTokens: 0, outputTokens: 0, reasoningTokens: 0, totalTokens: 0 };

/**
 * The one path for a model call. Callers admit first, so even errors carry rate-limit
 * headers; retries happen only where the provider provably did no work.
 */
export class Gateway {
  readonly #d: GatewayDeps;

  constructor(deps: GatewayDeps) {
    this.#d = deps;
  }

  get deps(): GatewayDeps {
    return this.#d;
  }

  /** The named model, or conduit's ranking (fallbacks only on no-work failures). */
  async #candidates(workspaceId: string, req: ChatRequest): Promise<{ list: Resolved[]; decision: RouteDecision | undefined }> {
    const cat = this.#d.catalogue;
    if (!isConduit(req.model)) return { list: [await cat.resolve(workspaceId, req.model)], decision: undefined };
    const [ids, overrides] = await Promise.all([cat.ids(workspaceId), this.#d.conduit.get(workspaceId)]);
    const r = route(req, ids, overrides);
    if (!r.ok) throw routeError(r);
    const list = await Promise.all(r.candidates.slice(0, 3).map((id) => cat.resolve(workspaceId, id)));
    return { list, decision: r };
  }

  /** Routing decision without serving (POST /api/v1/router). */
  async decide(workspaceId: string, req: ChatRequest) {
    if (!isConduit(req.model)) {
      const r = await this.#d.catalogue.resolve(workspaceId, req.model);
      return { task: null, family: null, chosen: r.model.id, candidates: [r.model.id], reasons: ['a direct model was named: classification bypassed'] };
    }
    const [ids, overrides] = await Promise.all([this.#d.catalogue.ids(workspaceId), this.#d.conduit.get(workspaceId)]);
    const r = route(req, ids, overrides);
    if (!r.ok) throw routeError(r);
    return { task: r.task, family: r.family, chosen: r.chosen, candidates: r.candidates, reasons: r.reasons, confidence: r.classification.confidence };
  }

  #record(ctx: CallContext, model: ExposedModel, status: number, u: UsageSplits, startedAt: number, estimated = false): void {
    const p = ctx.principal;
    this.#d.usage.record({
      ...u,
      estimated,
      workspaceId: p.workspaceId!,
      userId: p.userId,
      credentialId: p.credentialId,
      source: ctx.source,
      provider: model.provider,
      accountId: model.accountId,
      model: model.id,
      status,
      latencyMs: this.#d.clock.now() - startedAt,
      at: startedAt,
    });
    const m = this.#d.metrics;
    m.request(model.provider, model.id, status).inc();
    if (u.totalTokens > 0) {
      m.token.input.inc(u.inputTokens);
      m.token.cached.inc(u.cachedTokens);
      m.token.output.inc(u.outputTokens);
      m.token.reasoning.inc(u.reasoningTokens);
    }
  }

  async #call<T>(ctx: CallContext, list: Resolved[], fn: (r: Resolved) => Promise<T>): Promise<{ value: T; used: Resolved; upstreamMs: number }> {
    let used = list[0]!;
    const t0 = performance.now();
    try {
      const value = await withSafeRetry(
        (attempt) => {
          used = list[(attempt - 1) % list.length]!;
          return fn(used);
        },
        { attempts: Math.max(2, list.length), signal: ctx.signal },
      );
      const upstreamMs = performance.now() - t0;
      this.#d.metrics.upstream(used.model.provider).observe(upstreamMs / 1000);
      return { value, used, upstreamMs };
    } catch (err) {
      if (err instanceof UpstreamError) this.#record(ctx, used.model, err.status, ZERO, this.#d.clock.now());
      throw err;
    }
  }

  async chat(ctx: CallContext, req: ChatRequest, admission: Admission): Promise<{ result: ChatResult } & Served> {
    const { list, decision } = await this.#candidates(ctx.principal.workspaceId!, req);
    const startedAt = this.#d.clock.now();
    const { value, used, upstreamMs } = await this.#call(ctx, list, (r) => this.#d.engine.chat(r.target, { ...req, model: r.model.upstream, stream: false }, ctx.signal));
    const u = splitsOf(value.completion.usage);
    this.#record(ctx, used.model, 200, u, startedAt);
    admission.settle(u.totalTokens);
    return { result: value, model: used.model, admission, decision, upstreamMs };
  }

  /** Usage counts however the stream ends (estimated if need be), so partial reads are not free. */
  async chatStream(ctx: CallContext, req: ChatRequest, admission: Admission): Promise<{ stream: AsyncIterable<ChatChunk> } & Served> {
    const { list, decision } = await this.#candidates(ctx.principal.workspaceId!, req);
    const startedAt = this.#d.clock.now();
    const { value, used, upstreamMs } = await this.#call(ctx, list, (r) => this.#d.engine.chatStream(r.target, { ...req, model: r.model.upstream, stream: true }, ctx.signal));
    const done = (end: StreamEnd) => {
      const status = ctx.signal.aborted && end.status === 200 ? 499 : end.status;
      const { splits, estimated } = streamUsage(req, end);
      this.#record(ctx, used.model, status, splits, startedAt, estimated);
      admission.settle(splits.totalTokens);
      if (status !== 200) {
        this.#d.log.warn('stream ended early', {
          requestId: ctx.requestId, source: ctx.source, model: used.model.id, status, cause: causeOf(end.error, status),
          deliveredChars: end.deliveredChars, totalTokens: splits.totalTokens, estimated,
        });
      }
    };
    return { stream: new Tracked(value, done, req.stream_options?.include_usage === true), model: used.model, admission, decision, upstreamMs };
  }

  async embeddings(ctx: CallContext, req: EmbeddingsRequest, admission: Admission): Promise<{ response: EmbeddingsResponse } & Served> {
    if (isConduit(req.model)) throw new AppError('embeddings_not_supported', 'service/conduit routes chat; name an embeddings model.', { field: 'model' });
    const resolved = await this.#d.catalogue.resolve(ctx.principal.workspaceId!, req.model);
    if (!this.#d.engine.supportsEmbeddings(resolved.model.provider)) {
      throw new AppError('embeddings_not_supported', `The model '${req.model}' has no embeddings lane: provider ${resolved.model.provider} does not offer embeddings.`, { field: 'model' });
    }
    const startedAt = this.#d.clock.now();
    const { value, used, upstreamMs } = await this.#call(ctx, [resolved], (r) => this.#d.engine.embeddings(r.target, { ...req, model: r.model.upstream }, ctx.signal));
    const input = value.usage?.prompt_tokens ?? 0;
    this.#record(ctx, used.model, 200, { ...ZERO, inputTokens: input, totalTokens: value.usage?.total_tokens ?? input }, startedAt);
    admission.settle(value.usage?.total_tokens ?? input);
    return { response: value, model: used.model, admission, decision: undefined, upstreamMs };
  }
}

/** For the early-end log line; upstream messages carry no credentials. */
function causeOf(err: unknown, status: number): string {
  if (err instanceof UpstreamError) return `${err.body.error.code ?? 'upstream_error'}: ${err.message}`;
  if (err === undefined) return status === 499 ? 'the client closed the connection' : 'unknown';
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
