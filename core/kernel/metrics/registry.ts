import { collectDefaultMetrics, Counter, Registry } from 'prom-client';
import { FastCounter, FastHistogram, type CounterChild, type HistogramChild } from './fast.ts';

/** One registry per process, so /api/admin/metrics is one scrape. */
export interface Metrics {
  registry: Registry;
  httpRequests: FastCounter<'method' | 'route' | 'status'>;
  httpDuration: FastHistogram<'method' | 'route' | 'status'>;
  authFailures: Counter<'surface' | 'reason'>;
  /** Counter and latency children for one (method, route, status). */
  http(method: string, route: string, status: number): { count: CounterChild; duration: HistogramChild };
}

export function createMetrics(opts: { defaults?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaults !== false) {
    collectDefaultMetrics({ register: registry, prefix: 'svc_' });
    // `*_total` gauges fail promtool; their unsuffixed siblings carry the same numbers.
    for (const name of ['active_handles_total', 'active_requests_total', 'active_resources_total']) registry.removeSingleMetric(`svc_nodejs_${name}`);
  }
  const m = {
    registry,
    httpRequests: new FastCounter({
      name: 'svc_http_requests_total',
      help: 'HTTP requests by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new FastHistogram({
      name: 'svc_http_request_duration_seconds',
      help: 'HTTP request latency by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    authFailures: new Counter({
      name: 'svc_auth_failures_total',
      help: 'Refused authentication attempts by surface and reason.',
      labelNames: ['surface', 'reason'],
      registers: [registry],
    }),
  };
  // Cached so a request builds no key or closure; bounded like the label sets.
  type Series = { count: CounterChild; duration: HistogramChild };
  const byMethod = new Map<string, Map<string, Map<number, Series>>>();
  return {
    ...m,
    http(method, route, status) {
      let byRoute = byMethod.get(method);
      if (byRoute === undefined) byMethod.set(method, (byRoute = new Map()));
      let byStatus = byRoute.get(route);
      if (byStatus === undefined) byRoute.set(route, (byStatus = new Map()));
      let series = byStatus.get(status);
      if (series === undefined) {
        const key = `${method} ${route} ${status}`;
        const labels = () => ({ method, route, status: String(status) });
        series = { count: m.httpRequests.child(key, labels), duration: m.httpDuration.child(key, labels) };
        byStatus.set(status, series);
      }
      return series;
    },
  };
}
