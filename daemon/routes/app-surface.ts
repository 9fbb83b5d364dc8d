import { Hono } from 'hono';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { activeWorkspace, requireSession } from '../middleware/session.ts';
import type { AppEnv } from '../types.ts';
import { agentRoutes } from './agents.ts';
import { appRoutes } from './apps.ts';
import { conversationRoutes } from './conversations.ts';
import { credentialRoutes } from './credentials.ts';
import { invitationRoutes } from './invitations.ts';
import { memberRoutes } from './members.ts';
import { gatewaySettingsRoutes } from './gateway-settings.ts';
import { providerAccountRoutes } from './provider-accounts.ts';
import { shareRoutes } from './shares.ts';
import { workerRoutes } from './workers.ts';

/** The workbench surface: session (CSRF on writes), active workspace; roles per route. */
export function appSurface(core: Core, services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', requireSession(core, services), activeWorkspace(core));
  app.route('/', memberRoutes(core));
  app.route('/', invitationRoutes(core, services));
  app.route('/', credentialRoutes(core, services));
  app.route('/', providerAccountRoutes(core, services));
  app.route('/', gatewaySettingsRoutes(core, services));
  app.route('/', agentRoutes(core, services));
  app.route('/', conversationRoutes(core));
  app.route('/', shareRoutes(core, services));
  app.route('/', workerRoutes(core, services));
  app.route('/', appRoutes(core, services));
  return app;
}
