import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Core } from '../../core/index.ts';
import { readinessAnswer, type Readiness } from '../readiness.ts';
import { recordRequest, REQUEST_ID_HEADER, requestIdFor } from './envelope.ts';

/** false leaves the request to Hono. */
export type FastLane = (req: IncomingMessage, res: ServerResponse) => boolean;

const BODY = JSON.stringify({ status: 'ok' });
const LENGTH = String(Buffer.byteLength(BODY));
const ROUTES: Record<string, string> = { '/api/health': '/api/health', '/api/health/live': '/api/health/live' };

/**
 * Probes are frequent, and Hono tripled their cost (docs/architecture.md).
 * Same answer as Hono's; HEAD or a query string go to Hono.
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

/** A probe-only `svc serve` never loads Hono; `readiness` is Hono's, cache and all. */
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
      // Never rejects; if it does, fail loudly, not with a made-up status.
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

/** None takes it → Hono. */
export function firstOf(...lanes: FastLane[]): FastLane {
  return (req, res) => {
    for (const p of lanes) if (p(req, res)) return true;
    return false;
  };
}
