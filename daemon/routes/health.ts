import { Hono } from 'hono';
import { readinessAnswer, type Readiness, type ReadinessOptions } from '../readiness.ts';
import type { AppEnv } from '../types.ts';

export type { ReadinessOptions };

/** Liveness never asks the store: a database hiccup must not restart healthy processes. */
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
