import type { Registry } from 'prom-client';
import { FastCounter, FastHistogram, type CounterChild, type HistogramChild } from '../kernel/metrics/fast.ts';

export interface GatewayMetrics {
  requests: FastCounter<'provider' | 'model' | 'status'>;
  tokens: FastCounter<'kind'>;
  upstreamSeconds: FastHistogram<'provider'>;
  overheadSeconds: FastHistogram<'route'>;
  /** Series children (see core/kernel/metrics/fast.ts). */
  request(provider: string, model: string, status: number): CounterChild;
  token: Record<'input' | 'cached' | 'output' | 'reasoning', CounterChild>;
  upstream(provider: string): HistogramChild;
  overhead(route: string): HistogramChild;
}

/** Created once per Core; catalogues bound the model labels. */
export function gatewayMetrics(registry: Registry): GatewayMetrics {
  const m = {
    requests: new FastCounter({ name: 'svc_gateway_requests_total', help: 'Gateway model calls by provider, model and status.', labelNames: ['provider', 'model', 'status'], registers: [registry] }),
    tokens: new FastCounter({ name: 'svc_gateway_tokens_total', help: 'Tokens served by kind (input, cached, output, reasoning).', labelNames: ['kind'], registers: [registry] }),
    upstreamSeconds: new FastHistogram({
      name: 'svc_gateway_upstream_seconds',
      help: 'Upstream latency to the full response (non-streamed) or first chunk (streamed).',
      labelNames: ['provider'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers: [registry],
    }),
    overheadSeconds: new FastHistogram({
      name: 'svc_gateway_overhead_seconds',
      help: "The gateway's own added latency: time in the gateway minus time waiting on the upstream.",
      labelNames: ['route'],
      buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05],
      registers: [registry],
    }),
  };
  const token = (kind: string) => m.tokens.child(kind, () => ({ kind }));
  return {
    ...m,
    request: (provider, model, status) => {
      const key = `${provider}\u0000${model}\u0000${status}`;
      return m.requests.child(key, () => ({ provider, model, status: String(status) }));
    },
    token: { input: token('input'), cached: token('cached'), output: token('output'), reasoning: token('reasoning') },
    upstream: (provider) => m.upstreamSeconds.child(provider, () => ({ provider })),
    overhead: (route) => m.overheadSeconds.child(route, () => ({ route })),
  };
}
