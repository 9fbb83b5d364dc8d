import { Hono } from 'hono';
import type { Core } from '../../core/index.ts';
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

/**
 * `/api/app/*`: the workbench surface. Every route needs a session cookie (CSRF header on
 * state-changing methods) and acts in the active workspace; role checks sit on each route.
 */
export function appSurface(core: Core): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', requireSession(core), activeWorkspace(core));
  app.route('/', memberRoutes(core));
  app.route('/', invitationRoutes(core));
  app.route('/', credentialRoutes(core));
  app.route('/', providerAccountRoutes(core));
  app.route('/', gatewaySettingsRoutes(core));
  app.route('/', agentRoutes(core));
  app.route('/', conversationRoutes(core));
  app.route('/', shareRoutes(core));
  app.route('/', workerRoutes(core));
  app.route('/', appRoutes(core));
  return app;
}
