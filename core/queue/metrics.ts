import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface QueueMetrics {
  depth: Gauge<'status'>;
  wait: Histogram<'kind'>;
  finished: Histogram<'kind'>;
  reclaimed: Counter;
  fallback: Counter;
  leader: Gauge;
}

const SECONDS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900];

/** Queue series; depth is read from the store at scrape time. */
export function queueMetrics(registry: Registry, depth?: () => Promise<{ queued: number; running: number }>): QueueMetrics {
  return {
    depth: new Gauge({
      name: 'svc_queue_depth',
      help: 'Jobs by status (queued, running), read from the store at scrape time.',
      labelNames: ['status'],
      registers: [registry],
      async collect() {
        if (!depth) return;
        const d = await depth().catch(() => undefined);
        if (d) {
          this.set({ status: 'queued' }, d.queued);
          this.set({ status: 'running' }, d.running);
        }
      },
    }),
    wait: new Histogram({ name: 'svc_queue_wait_seconds', help: 'Time from due to claimed, by job kind.', labelNames: ['kind'], buckets: SECONDS, registers: [registry] }),
    finished: new Histogram({ name: 'svc_queue_claim_to_finish_seconds', help: 'Time from claim to finish, by job kind.', labelNames: ['kind'], buckets: SECONDS, registers: [registry] }),
    reclaimed: new Counter({ name: 'svc_queue_reclaimed_leases_total', help: 'Jobs claimed after their previous worker’s lease expired.', registers: [registry] }),
    fallback: new Counter({ name: 'svc_queue_fallback_runs_total', help: 'Async runs executed in the web process because the store could not take the job in 5 s (not durable).', registers: [registry] }),
    leader: new Gauge({ name: 'svc_scheduler_leader', help: '1 while this process is the scheduler leader, else 0.', registers: [registry] }),
  };
}
