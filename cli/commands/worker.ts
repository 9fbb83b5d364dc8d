import { createLogger } from '../../core/kernel/log.ts';
import { migrationStatus } from '../../core/store/index.ts';
import { startScheduler } from '../../daemon/scheduler.ts';
import { loadConfigOrExplain, onStopSignals, openProcess } from '../command.ts';

export interface WorkerCommandOptions {
  concurrency: string;
  once?: boolean;
  stopTimeout: string;
}

/** On a signal runs finish their step or hand back (docs/operations.md). */
export async function worker(opts: WorkerCommandOptions): Promise<void> {
  const loaded = loadConfigOrExplain('svc', {}, ', not starting');
  if (!loaded) return;
  const { config } = loaded;
  const concurrency = Number(opts.concurrency);
  const stopTimeout = Number(opts.stopTimeout);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) throw new Error('--concurrency must be an integer from 1 to 256');
  if (!Number.isFinite(stopTimeout) || stopTimeout < 0) throw new Error('--stop-timeout must be a number of milliseconds');
  const log = createLogger(config.SERVICE_LOG_LEVEL);
  const { core, services } = await openProcess(loaded, log);
  const status = await migrationStatus(core.db);
  if (status.pending.length > 0 || status.newerThanBinary) {
    await core.close();
    process.stderr.write(
      status.newerThanBinary
        ? `svc: the database (version ${status.current}) is newer than this binary (${status.latest}); upgrade svc\n`
        : `svc: ${status.pending.length} migration(s) pending; run \`svc migrate\` (or start \`svc serve\`) first\n`,
    );
    process.exit(1);
  }
  const w = services.queue.worker({ concurrency, leaseMs: config.SERVICE_JOB_LEASE_MS, once: opts.once === true });
  log.info('worker started', { id: w.id, concurrency, store: config.SERVICE_STORE, once: opts.once === true });
  // `--once` does not campaign; core.close() releases the lock or lease.
  if (!opts.once) startScheduler(core, services);
  onStopSignals(async (signal) => {
    log.info('worker stopping', { signal, inflight: w.inflight, timeoutMs: stopTimeout });
    await w.stop(stopTimeout);
    await core.close();
    log.info('worker stopped', { signal });
  });
  await w.start();
  if (opts.once) {
    await w.stop(stopTimeout);
    await core.close();
    log.info('worker finished (--once)');
  }
}
