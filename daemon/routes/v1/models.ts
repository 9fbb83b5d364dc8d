import { Hono } from 'hono';
import type { GatewayRuntime } from '../../../core/gateway/runtime.ts';
import { CONDUIT_MODEL } from '../../../core/gateway/router/route.ts';
import { modelNotFound } from '../../../core/gateway/catalogue.ts';
import { AppError } from '../../../core/kernel/errors.ts';
import type { AppEnv } from '../../types.ts';

const CREATED = 1_735_689_600; // 2025-01-01: catalogues give no dates; a fixed one keeps lists stable

export function modelRoutes(rt: GatewayRuntime): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const list = async (ws: string) => [
    ...(await rt.catalogue.models(ws)).map((m) => ({ id: m.id, object: 'model' as const, created: CREATED, owned_by: m.provider })),
    { id: CONDUIT_MODEL, object: 'model' as const, created: CREATED, owned_by: 'service' },
  ];

  app.get('/models', async (c) => {
    const p = c.get('principal');
    c.set('rateHeaders', await rt.quota.headersFor(p));
    const data = await list(p.workspaceId!);
    // Say which accounts did not answer, rather than silently omit them.
    const missing = await rt.catalogue.unavailable(p.workspaceId!);
    if (missing.length > 0) c.header('x-svc-unavailable-providers', missing.join(','));
    return c.json({ object: 'list', data });
  });

  // Ids contain a slash (`openai/gpt-4.1-mini`).
  app.get('/models/*', async (c) => {
    const p = c.get('principal');
    c.set('rateHeaders', await rt.quota.headersFor(p));
    const id = decodedId(c.req.path.slice(c.req.path.indexOf('/models/') + '/models/'.length));
    const m = (await list(p.workspaceId!)).find((x) => x.id === id);
    if (!m) throw modelNotFound(id);
    return c.json(m);
  });
  return app;
}

/** Bad percent-encoding (`%ZZ`, broken UTF-8) is the client's mistake: a 400, not a 500. */
function decodedId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new AppError('invalid_model_id', 'The model id in the path is not valid percent-encoding (UTF-8).', { field: 'model' });
  }
}
