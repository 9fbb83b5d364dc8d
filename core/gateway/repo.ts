import type { Queryable } from '../store/types.ts';

/** The only SQL on workspace_settings. */

/** The workspace's conduit overrides as stored (JSON text), if any. */
export async function conduitOf(q: Queryable, workspaceId: string): Promise<string | undefined> {
  return (await q.one<{ conduit: string }>('SELECT conduit FROM workspace_settings WHERE workspace_id = ?', [workspaceId]))?.conduit;
}

export async function upsertConduit(q: Queryable, workspaceId: string, conduit: string, at: string): Promise<void> {
  await q.run(
    `INSERT INTO workspace_settings (workspace_id, conduit, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (workspace_id) DO UPDATE SET conduit = excluded.conduit, updated_at = excluded.updated_at`,
    [workspaceId, conduit, at],
  );
}
