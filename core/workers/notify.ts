import { createHmac } from 'node:crypto';
import { backoffMs } from '../kernel/backoff.ts';
import type { Config } from '../kernel/config/index.ts';
import type { Logger } from '../kernel/log.ts';
import type { Clock } from '../kernel/clock.ts';
import { enqueue, type Job } from '../queue/repo.ts';
import type { JobContext, JobOutcome } from '../queue/worker.ts';
import { addEvent } from '../runs/repo/events.ts';
import { getRun } from '../runs/repo/runs.ts';
import type { RunRow } from '../runs/types.ts';
import type { Db, Queryable } from '../store/types.ts';
import { systemResolver, vetUrl, type Resolver } from '../net/http-guard.ts';
import { sendHop } from '../tools/http-hop.ts';
import { classifyAddress, type AddressClass } from '../net/net-address.ts';
import { notifyTarget, notifyUrlOf } from './repo.ts';

/**
 * Outbound notification of a Worker run's end: `worker.notify` jobs, enqueued in the transaction
 * that writes the run's terminal status (so a finished run is notified even if the process dies the
 * next instant), sent by whichever queue worker claims them — never in the run's own path, so a slow
 * or failing receiver cannot delay or fail the run.
 *
 * The POST body is `{type:'run.finished', runId, workerId, agentId, status, outputText?, error?,
 * errorCode?, finishedAt}`, signed `x-svc-signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`
 * under the key HKDF(SERVICE_WEBHOOK_SECRET, "svc:worker-notify:v1") (docs/workers.md shows how a
 * receiver derives it). Delivery goes through the http_request tool's SSRF guard (resolve once,
 * vet every address, connect only to those), honouring SERVICE_TOOL_HTTP_ALLOW_PRIVATE; redirects
 * are not followed. 2xx = delivered; network errors, timeouts, 408, 429 and 5xx are retried with
 * exponential backoff up to NOTIFY_MAX_ATTEMPTS; anything else is final. Each attempt leaves an
 * event on the run (`notify.sent` / `notify.failed`); the run's status never changes.
 */

export const NOTIFY_KIND = 'worker.notify';
export const NOTIFY_MAX_ATTEMPTS = 8;
export const NOTIFY_TIMEOUT_MS = 10_000;

/** 5 s, 10 s, 20 s … capped at 10 minutes, plus up to 10 % jitter so receivers coming back from an
 * outage are not hit by every retry in the same second. */
export function notifyBackoffMs(attempt: number, random = Math.random): number {
  return backoffMs({ retries: Math.max(0, attempt - 1), baseMs: 5000, maxMs: 600_000, jitter: 0.1, random });
}

export function signNotification(key: Buffer, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', key).update(`${unixSeconds}.${body}`).digest('hex')}`;
}

/** The end-of-run hook (RunDeps.onEnd): enqueues the notification when the run belongs to a
 * Worker that has a notifyUrl. Inside the run's final transaction; one job per run at most. */
export async function enqueueNotify(q: Queryable, run: RunRow, nowMs: number): Promise<void> {
  if (!run.worker_id) return;
  if (!(await notifyUrlOf(q, run.worker_id))) return;
  await enqueue(q, { kind: NOTIFY_KIND, runId: run.id, payload: { runId: run.id }, uniqueKey: `notify:${run.id}`, maxAttempts: NOTIFY_MAX_ATTEMPTS }, nowMs);
}

export interface NotifyDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  key: Buffer;
  config: Pick<Config, 'SERVICE_TOOL_HTTP_ALLOW_PRIVATE'>;
  resolve?: Resolver;
  classify?: (ip: string) => AddressClass;
  random?: () => number;
}

export function notifyHandler(d: NotifyDeps) {
  const iso = () => new Date(d.clock.now()).toISOString();
  return async (job: Job, ctx: JobContext): Promise<JobOutcome> => {
    const runId = (JSON.parse(job.payload) as { runId?: string }).runId ?? job.run_id;
    const run = runId ? await getRun(d.db, runId) : undefined;
    const w = run?.worker_id ? await notifyTarget(d.db, run.worker_id) : undefined;
    if (!run || !w?.notify_url) return { done: true }; // Worker removed or URL cleared since: nothing to send
    const body = JSON.stringify({
      type: 'run.finished',
      runId: run.id,
      workerId: w.id,
      agentId: run.agent_id,
      status: run.status,
      ...(run.output_text !== null ? { outputText: run.output_text } : {}),
      ...(run.error_message ? { error: run.error_message, errorCode: run.error_code } : {}),
      finishedAt: run.finished_at,
    });
    const attempt = job.attempts;
    const fail = async (error: string, retry: boolean): Promise<JobOutcome> => {
      const retryInMs = retry && attempt < NOTIFY_MAX_ATTEMPTS ? notifyBackoffMs(attempt, d.random) : undefined;
      await addEvent(d.db, run.id, 'notify.failed', { attempt, error, ...(retryInMs !== undefined ? { retryInMs } : { final: true }) }, iso());
      d.log.warn('worker notification failed', { runId: run.id, workerId: w.id, attempt, error, retryInMs });
      return retryInMs !== undefined ? { retryInMs, error } : { done: true };
    };

    const url = new URL(w.notify_url);
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(NOTIFY_TIMEOUT_MS)]);
    let vetted;
    try {
      vetted = await vetUrl(url, {
        allowPrivate: d.config.SERVICE_TOOL_HTTP_ALLOW_PRIVATE, allowLists: [], resolve: d.resolve ?? systemResolver, classify: d.classify ?? classifyAddress, signal,
      });
    } catch (err) {
      return fail(`could not resolve ${url.hostname}: ${(err as Error).message}`, true);
    }
    // A refused address is configuration, not weather: retrying cannot help. DNS failures can.
    if (!vetted.ok) return fail(vetted.error, vetted.error.startsWith('could not resolve'));
    try {
      const res = await sendHop({
        url, method: 'POST', body, addresses: vetted.addresses, maxResponseBytes: 4096, signal,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'svc-notify/1',
          'x-svc-event': 'run.finished',
          'x-svc-delivery': job.id,
          'x-svc-signature': signNotification(d.key, body, Math.floor(d.clock.now() / 1000)),
        },
      });
      if (res.status >= 200 && res.status < 300) {
        await addEvent(d.db, run.id, 'notify.sent', { attempt, status: res.status }, iso());
        return { done: true };
      }
      return fail(`receiver answered ${res.status}`, res.status >= 500 || res.status === 408 || res.status === 429);
    } catch (err) {
      if (ctx.signal.aborted) throw err; // lost the lease: the new owner sends it
      return fail(`receiver unreachable: ${(err as Error).message}`, true);
    }
  };
}
