import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Core } from '../../core/index.ts';
import { readinessAnswer, type Readiness } from '../readiness.ts';
import { recordRequest, REQUEST_ID_HEADER, requestIdFor } from './envelope.ts';

/** Handles the request and returns true, or returns false to leave it to the Hono app. */
export type FastLane = (req: IncomingMessage, res: ServerResponse) => boolean;

const BODY = JSON.stringify({ status: 'ok' });
const LENGTH = String(Buffer.byteLength(BODY));
const ROUTES: Record<string, string> = { '/api/health': '/api/health', '/api/health/live': '/api/health/live' };

/**
 * GET /api/health and /api/health/live on plain node:http. Liveness probes arrive every few
 * seconds from every load balancer and orchestrator; building a Web Request and Response and
 * walking the middleware chain for a constant answer tripled their cost. The answer, the request
 * id, the access-log line and the HTTP metrics are the Hono route's (http-fast-health.test.ts
 * compares them); anything else — HEAD, a query string — goes to Hono.
 */
export function healthLane(core: Core): FastLane {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET') return false;
    const route = req.url === undefined ? undefined : ROUTES[req.url];
    if (!route) return false;
    const start = performance.now();
    const requestId = requestIdOf(req);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': LENGTH, [REQUEST_ID_HEADER]: requestId });
    res.end(BODY);
    recordRequest(core, 'GET', route, route, route, 200, start, requestId);
    return true;
  };
}

const READY = '/api/health/ready';

/**
 * GET /api/health/ready, the same way: readiness probes are as frequent as liveness probes, and
 * answering them here means a freshly started `svc serve` that only sees probes never loads the
 * Hono app (daemon/server.ts loads it on the first other request). `readiness` is the one the Hono
 * route uses (createApp passes both the same instance), so they share the status cache.
 */
export function readinessLane(core: Core, readiness: () => Promise<Readiness>): FastLane {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET' || req.url !== READY) return false;
    const start = performance.now();
    const requestId = requestIdOf(req);
    readiness().then(
      (r) => {
        const { status, body } = readinessAnswer(r);
        const text = JSON.stringify(body);
        res.writeHead(status, {
          'cache-control': 'no-store',
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(text)),
          [REQUEST_ID_HEADER]: requestId,
        });
        res.end(text);
        recordRequest(core, 'GET', READY, READY, READY, status, start, requestId);
      },
      // createReadiness turns every failure into a not-ready answer and never rejects; should that
      // change, fail loudly rather than answer a probe with a made-up status.
      (err: unknown) => {
        core.log.error('readiness check threw', { error: err, requestId });
        res.destroy();
      },
    );
    return true;
  };
}

function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers[REQUEST_ID_HEADER];
  return requestIdFor(typeof incoming === 'string' ? incoming : undefined);
}

/** The first lane that takes the request wins; none → Hono. */
export function firstOf(...lanes: FastLane[]): FastLane {
  return (req, res) => {
    for (const p of lanes) if (p(req, res)) return true;
    return false;
  };
}
