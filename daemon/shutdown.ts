import type { Core } from '../core/index.ts';
import type { ServerHandle } from './server.ts';

export interface ShutdownOptions {
  exit?: (code: number) => void;
}

const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * SIGTERM/SIGINT: drain the server (up to SERVICE_SHUTDOWN_TIMEOUT_MS, then force), close the
 * store, exit 0. A second signal means the operator will not wait: exit at once with 128+signo.
 */
export function installShutdown(core: Core, handle: ServerHandle, opts: ShutdownOptions = {}): void {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      core.log.warn('second signal; exiting without waiting', { signal });
      exit(SIGNAL_EXIT[signal] ?? 1);
      return;
    }
    stopping = true;
    const started = performance.now();
    core.log.info('stopping', { signal, timeoutMs: core.config.SERVICE_SHUTDOWN_TIMEOUT_MS });
    void (async () => {
      let code = 0;
      try {
        const { forced } = await handle.close();
        await core.close();
        core.log.info('stopped', { signal, forced, durationMs: Math.round(performance.now() - started) });
      } catch (err) {
        core.log.error('shutdown failed', { error: err });
        code = 1;
      }
      exit(code);
    })();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
