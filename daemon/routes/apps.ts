import { Hono } from 'hono';
import * as z from 'zod';
import { createPreviewLink } from '../../core/apps/service.ts';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { readJson } from '../http/json-body.ts';
import type { AppEnv } from '../types.ts';

export const LinkBody = z.strictObject({ version: z.number().int().min(1).max(1_000_000_000).optional() });

/** A capability link on the preview origin, for whoever may read the app's run. */
export function appRoutes(core: Core, services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const deps = services.previewLinks;
  app.post('/apps/:appId/preview-links', async (c) => {
    const hasBody = c.req.header('transfer-encoding') !== undefined || (c.req.header('content-length') ?? '0') !== '0';
    const body = hasBody ? await readJson(c, LinkBody) : {};
    const caller = { userId: c.get('user').id, workspaceId: c.get('workspace').id };
    return c.json(await createPreviewLink(deps, caller, c.req.param('appId'), body.version), 201);
  });
  return app;
}
