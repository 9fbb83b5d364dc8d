import { Hono } from 'hono';
import { listConversations, readConversation } from '../../core/conversations/service.ts';
import type { Core } from '../../core/index.ts';
import type { AppEnv } from '../types.ts';

/** The caller's own, in the active workspace; another user's is a 404. */
export function conversationRoutes(core: Core): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/conversations', async (c) => c.json({ data: await listConversations(core.db, c.get('user').id, c.get('workspace').id) }));
  app.get('/conversations/:id', async (c) => c.json(await readConversation(core.db, c.req.param('id'), c.get('user').id)));
  return app;
}
