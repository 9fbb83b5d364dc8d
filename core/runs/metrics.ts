import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface RunMetrics {
  started: Counter<'mode'>;
  finished: Counter<'status'>;
  duration: Histogram<'status'>;
  steps: Counter<'kind'>;
  approvalsWaiting: Gauge;
}

/** `waiting` counts pending approvals in the store when the registry is scraped. */
export function runMetrics(registry: Registry, waiting?: () => Promise<number>): RunMetrics {
  return {
    started: new Counter({ name: 'svc_runs_started_total', help: 'Agent runs started, by mode (request, queued, fallback).', labelNames: ['mode'], registers: [registry] }),
    finished: new Counter({ name: 'svc_runs_finished_total', help: 'Agent runs that reached a terminal or waiting status, by status.', labelNames: ['status'], registers: [registry] }),
    duration: new Histogram({
      name: 'svc_run_duration_seconds',
      help: 'Execution time of agent runs from entering running to stopping, by final status.',
      labelNames: ['status'],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
      registers: [registry],
    }),
    steps: new Counter({ name: 'svc_run_steps_total', help: 'Agent run steps executed, by kind (model, tool).', labelNames: ['kind'], registers: [registry] }),
    approvalsWaiting: new Gauge({
      name: 'svc_run_approvals_waiting',
      help: 'Tool approvals waiting for a decision (read from the store at scrape time).',
      registers: [registry],
      async collect() {
        if (waiting) this.set(await waiting().catch(() => 0));
      },
    }),
  };
}
