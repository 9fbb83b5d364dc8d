// The caller's own conversations in the active workspace.
import { listConversations, readConversation } from '../../../core/conversations/service.ts';
import { cut, html, table, time } from '../html.ts';
import type { Web } from '../router.ts';

export function conversationPages(web: Web): void {
  const { core } = web;

  web.get('/conversations', async (c, s) => {
    const list = await listConversations(core.db, s.user.id, s.workspace.id);
    return web.page(c, {
      title: 'Conversations',
      section: '/conversations',
      body: html`<p>Your conversations with agents in ${s.workspace.name}, most recent first (the latest 100).</p>
${table('Conversations', ['Title', 'Messages', 'Started', 'Last message'], list.map((x) => html`<tr><td><a href="/conversations/${x.id}">${cut(x.title, 80) || x.id}</a></td><td class="num">${x.messageCount}</td><td>${time(x.createdAt)}</td><td>${time(x.updatedAt)}</td></tr>`), 'No conversation yet: tick “Keep it as a conversation” when you start a run.')}`,
    });
  });

  web.get('/conversations/:id', async (c, s) => {
    const conv = await readConversation(core.db, c.req.param('id')!, s.user.id);
    return web.page(c, {
      title: cut(conv.title, 80) || 'Conversation',
      section: '/conversations',
      body: html`<p><a href="/agents/${conv.agentId}">The agent</a> · started ${time(conv.createdAt)}</p>
<ol class="messages">${conv.messages.map((m) => html`<li><p><strong>${m.role === 'user' ? 'You' : 'Agent'}</strong> · ${time(m.createdAt)}${m.runId ? html` · <a href="/runs/${m.runId}">run</a>` : ''}</p><pre>${m.content}</pre></li>`)}</ol>`,
    });
  });
}
