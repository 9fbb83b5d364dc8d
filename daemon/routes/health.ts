import { Hono } from 'hono';
import { readinessAnswer, type Readiness, type ReadinessOptions } from '../readiness.ts';
import type { AppEnv } from '../types.ts';

export type { ReadinessOptions };

/**
 * GET /api/health and /api/health/live answer from the process alone (a liveness probe must not
 * restart a healthy process because the database hiccuped); /api/health/ready asks the store
 * through `readiness` (createReadiness; shared with the fast path, so one status cache).
 */
export function healthRoutes(readiness: () => Promise<Readiness>): Hono<AppEnv> {
  const live = new Hono<AppEnv>();
  const ok = { status: 'ok' } as const;
  live.get('/', (c) => c.json(ok));
  live.get('/live', (c) => c.json(ok));
  live.get('/ready', async (c) => {
    c.header('cache-control', 'no-store');
    const { status, body } = readinessAnswer(await readiness());
    return c.json(body, status);
  });
  return live;
}
