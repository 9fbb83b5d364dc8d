// The workbench (docs/workbench.md): server-rendered pages over the same core as /api/app.
import type { Hono } from 'hono';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import type { AppEnv } from '../types.ts';
import { webAssets } from './assets.ts';
import { accountPages } from './pages/account.ts';
import { authPages } from './pages/auth.ts';
import { conversationPages } from './pages/conversations.ts';
import { usagePages } from './pages/usage.ts';
import { workerPages } from './pages/workers.ts';
import { agentPages } from './pages/agents.ts';
import { homePages } from './pages/home.ts';
import { resetPasswordPages } from './pages/reset-password.ts';
import { peoplePages } from './pages/people.ts';
import { providerPages } from './pages/providers.ts';
import { runPages } from './pages/runs.ts';
import { tokenPages } from './pages/tokens.ts';
import { createWeb } from './router.ts';

export function workbenchRoutes(core: Core, services: Services): Hono<AppEnv> {
  const { web, app } = createWeb(core, services);
  // At start, so the first page does not wait for it.
  void webAssets().catch((err: unknown) => core.log.error('workbench assets could not be built', { error: err }));

  app.get('/assets/:file', async (c) => {
    const asset = (await webAssets()).byPath.get(c.req.path);
    if (!asset) return c.text('Not found', 404);
    return c.body(asset.body, 200, {
      'content-type': asset.type,
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      'cross-origin-resource-policy': 'same-origin',
    });
  });

  homePages(web);
  authPages(web);
  resetPasswordPages(web);
  providerPages(web);
  agentPages(web);
  runPages(web);
  peoplePages(web);
  tokenPages(web);
  workerPages(web);
  usagePages(web);
  conversationPages(web);
  accountPages(web);
  return app;
}
