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
 * Timeouts (Node's defaults are 60 s for headers and 300 s for a request, too generous for a
 * public port):
 * - headersTimeout 15 s: a client that trickles headers (slowloris) loses its socket quickly.
 * - requestTimeout 60 s: bounds *receiving* the request (headers + body), which is all Node's
 *   requestTimeout covers, so it never cuts a long or streaming *response*: SSE streams and
 *   in-request agent runs are unaffected. 60 s still lets a 20 MB gateway body arrive on a slow link.
 * - server.timeout (socket inactivity) stays 0 / disabled: an in-request run or a stream may be
 *   silent for minutes between chunks; the reverse proxy's timeout is the cap there.
 * - keepAliveTimeout 65 s: longer than common load-balancer idle timeouts (60 s), so the balancer,
 *   not us, closes idle kept-alive sockets and never sends on one we just closed.
 */
export const SERVER_TIMEOUTS = {
  headersTimeout: 15_000,
  requestTimeout: 60_000,
  keepAliveTimeout: 65_000,
  // How often Node checks the two limits above; its default (30 s) would let them overrun by 30 s.
  connectionsCheckingInterval: 5_000,
} as const;

export interface ServerHandle {
  port: number;
  host: string;
  server: Server;
  /**
   * Stops accepting, lets in-flight requests finish for up to `timeoutMs`
   * (default SERVICE_SHUTDOWN_TIMEOUT_MS), then destroys the remaining sockets. Does not close the
   * store: the caller owns the Core. Resolves `{forced}` = sockets still open at the deadline.
   */
  close(timeoutMs?: number): Promise<{ forced: boolean }>;
}

export interface StartOptions {
  port: number;
  host: string;
  /**
   * An app built by the caller (tests add routes). Default: createApp(core, services), built on the first
   * request the probe fast paths do not answer (see startServer).
   */
  app?: App;
  /** false: every request through Hono, the fast path off (tests compare the two). Default on. */
  fastPath?: boolean;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Listens on node:http. Without `opts.app`, the Hono app — every route surface, their schemas,
 * @hono/node-server and through it Node's fetch implementation (undici), the gateway runtime — is
 * imported and built on the first request that is not a health probe, not at start: that is about
 * half of the start-up time and a quarter of the idle heap, and a process that only answers probes
 * (a replica starting, a standby) never needs it. Until then GET /api/health, /api/health/live and
 * /api/health/ready are answered by the same fast paths that serve them later; every other request
 * waits for the app (tens of ms, once) and is then handled exactly as before.
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
      // Tracking runs first (a fast-path answer may be written before any await); then the hot
      // routes on plain node:http (the app's fast lane), everything else through Hono.
      const fast = opts.fastPath === false ? undefined : built.fastLane;
      const hono = getRequestListener(built.fetch);
      return (handler = (req, res) => {
        if (!fast?.(req, res)) void hono(req, res);
      });
    })());
  // A caller's app is ready now: no reason to defer, and its own fast path (or none) applies at once.
  if (opts.app) await load();
  const early = opts.fastPath === false ? undefined : firstOf(healthLane(core), readinessLane(core, createReadiness(core)));
  const forPreview = previewHostMatcher(core.config);
  let preview: PreviewHandler | undefined;

  let inflight = 0;
  let closing = false;
  const track = (res: ServerResponse) => {
    inflight++;
    // While draining, tell keep-alive clients not to reuse the socket so it can close after this reply.
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
      // The preview origin (generated apps, untrusted code) is decided first, on the Host header:
      // no app route, fast path or probe ever answers there (daemon/preview/).
      if (forPreview(req)) return (preview ??= previewHandler(core, services.preview))(req, res);
      if (handler) return handler(req, res);
      if (early?.(req, res)) return;
      load().then(
        (h) => h(req, res),
        // Only a broken build gets here (a chunk missing from the program cache): say so and fail
        // the request rather than hang it; the next request tries again.
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
      // close() stops the listener and (Node ≥ 19) drops idle keep-alive sockets; it calls back once
      // every connection has ended.
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
