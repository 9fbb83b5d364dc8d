import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Core } from '../core/index.ts';
import type { Services } from '../core/services.ts';
import type { App } from './app.ts';
import { firstOf, healthLane, readinessLane } from './http/fast-lane.ts';
import { createReadiness } from './readiness.ts';
import { previewHostMatcher } from './preview/host.ts';
import { previewHandler, type PreviewHandler } from './preview/serve.ts';

/**
 * Only what the client sends is bounded; streams are never cut.
 * Keep-alive outlasts balancers' 60 s, so they close first (docs/operations.md).
 */
export const SERVER_TIMEOUTS = {
  headersTimeout: 15_000,
  requestTimeout: 60_000,
  keepAliveTimeout: 65_000,
  // Node's 30 s default would let the limits above overrun by 30 s.
  connectionsCheckingInterval: 5_000,
} as const;

export interface ServerHandle {
  port: number;
  host: string;
  server: Server;
  /** Drains, then destroys what is left (`forced`); the store stays open. */
  close(timeoutMs?: number): Promise<{ forced: boolean }>;
}

export interface StartOptions {
  port: number;
  host: string;
  /** Tests pass their own; by default built on the first non-probe request. */
  app?: App;
  /** false: everything through Hono (tests compare the two). */
  fastPath?: boolean;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Probes answer at once; Hono, undici and the gateway load on the first other request.
 * A probe-only replica never pays for them (docs/operations.md).
 */
export async function startServer(core: Core, services: Services, opts: StartOptions): Promise<ServerHandle> {
  let handler: Handler | undefined;
  let loading: Promise<Handler> | undefined;
  const load = (): Promise<Handler> =>
    (loading ??= (async () => {
      const [{ getRequestListener }, built] = await Promise.all([
        import('@hono/node-server'),
        opts.app ?? import('./app.ts').then((m) => m.createApp(core, services)),
      ]);
      // The hot routes on plain node:http, the rest through Hono.
      const fast = opts.fastPath === false ? undefined : built.fastLane;
      const hono = getRequestListener(built.fetch);
      return (handler = (req, res) => {
        if (!fast?.(req, res)) void hono(req, res);
      });
    })());
  // A caller's app is built: its fast lane applies at once.
  if (opts.app) await load();
  const early = opts.fastPath === false ? undefined : firstOf(healthLane(core), readinessLane(core, createReadiness(core)));
  const forPreview = previewHostMatcher(core.config);
  let preview: PreviewHandler | undefined;

  let inflight = 0;
  let closing = false;
  const track = (res: ServerResponse) => {
    inflight++;
    // Draining: keep-alive clients must not reuse this socket.
    if (closing) res.setHeader('connection', 'close');
    res.once('close', () => {
      inflight--;
      if (closing) server.closeIdleConnections();
    });
  };
  const server = createServer(
    {
      headersTimeout: SERVER_TIMEOUTS.headersTimeout,
      requestTimeout: SERVER_TIMEOUTS.requestTimeout,
      keepAliveTimeout: SERVER_TIMEOUTS.keepAliveTimeout,
      connectionsCheckingInterval: SERVER_TIMEOUTS.connectionsCheckingInterval,
    },
    (req, res) => {
      track(res);
      // Preview first: no app route or probe answers untrusted code's origin.
      if (forPreview(req)) return (preview ??= previewHandler(core, services.preview))(req, res);
      if (handler) return handler(req, res);
      if (early?.(req, res)) return;
      load().then(
        (h) => h(req, res),
        // A broken build: fail rather than hang; the next request retries.
        (err: unknown) => {
          loading = undefined;
          core.log.error('HTTP app failed to load', { error: err });
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { code: 'internal_error', message: 'An internal error occurred.' } }));
        },
      );
    },
  );
  server.timeout = 0;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;

  let closed: Promise<{ forced: boolean }> | undefined;
  const close = (timeoutMs = core.config.SERVICE_SHUTDOWN_TIMEOUT_MS) => {
    closed ??= new Promise((resolve) => {
      closing = true;
      let forced = false;
      const deadline = setTimeout(() => {
        forced = true;
        core.log.warn('shutdown deadline reached; closing remaining connections', { inflight, timeoutMs });
        server.closeAllConnections();
      }, timeoutMs);
      // Also drops idle keep-alive sockets (Node ≥ 19).
      server.close(() => {
        clearTimeout(deadline);
        resolve({ forced });
      });
      server.closeIdleConnections();
    });
    return closed;
  };

  return { port: addr.port, host: addr.address, server, close };
}
