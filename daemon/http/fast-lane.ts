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
 * Frequent probes, which Hono made three times dearer. Same answer, log and metric as Hono's
 * (http-fast-health.test.ts); HEAD or a query string go to Hono.
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

/** A probe-only `svc serve` never loads Hono; shares Hono's `readiness`, so its status cache. */
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
      // createReadiness never rejects; should it, fail loudly rather than make up a status.
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
