import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Core } from '../core/index.ts';
import type { FastPath } from './fast-chat.ts';
import { isValidRequestId, newRequestId, REQUEST_ID_HEADER } from './middleware/request-id.ts';
import { readinessAnswer, type Readiness } from './readiness.ts';

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
export function healthFastPath(core: Core): FastPath {
  const done = finisher(core);
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET') return false;
    const route = req.url === undefined ? undefined : ROUTES[req.url];
    if (!route) return false;
    const start = performance.now();
    const requestId = requestIdOf(req);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': LENGTH, [REQUEST_ID_HEADER]: requestId });
    res.end(BODY);
    done(route, 200, start, requestId);
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
export function readinessFastPath(core: Core, readiness: () => Promise<Readiness>): FastPath {
  const done = finisher(core);
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
        done(READY, status, start, requestId);
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
  return typeof incoming === 'string' && isValidRequestId(incoming) ? incoming : newRequestId();
}

/** The HTTP metrics and access-log line the Hono middleware would record (5xx logged as warn). */
function finisher(core: Core) {
  const { log, metrics } = core;
  return (route: string, status: number, start: number, requestId: string): void => {
    const ms = performance.now() - start;
    const series = metrics.http('GET', route, status);
    series.count.inc();
    series.duration.observe(ms / 1000);
    const fields = { method: 'GET', path: route, route, status, durationMs: Math.round(ms * 100) / 100, requestId };
    if (status >= 500) log.warn('request', fields);
    else log.info('request', fields);
  };
}

/** The first fast path that takes the request wins; none → Hono. */
export function firstOf(...paths: FastPath[]): FastPath {
  return (req, res) => {
    for (const p of paths) if (p(req, res)) return true;
    return false;
  };
}
