// The workbench's store reads on both stores: the session's remembered workspace and the run list's
// keyset pages (newest first; a cursor continues exactly after the last row, ties broken by id).
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { register } from '../../core/accounts/register.ts';
import { createSession, endUserSessions, sessionOf, setActiveWorkspace } from '../../core/accounts/sessions.ts';
import { listRunsPage } from '../../core/runs/read.ts';
import { accountsDeps } from '../../core/services.ts';
import { DIALECTS } from '../helpers/stores.ts';
import { testCore, type Fixture } from './http-fixture.ts';

for (const store of DIALECTS) {
  describe(`workbench store reads (${store})`, () => {
    let fx: Fixture;
    beforeAll(async () => {
      fx = await testCore({ store, env: { SERVICE_REGISTRATION_MODE: 'open' } });
    });
    afterAll(() => fx.cleanup());

    test('the active workspace is remembered per session; sessions end per user, one kept', async () => {
      const deps = accountsDeps(fx.core);
      const a = await register(deps, { email: 'a@example.com', password: 'correct horse battery', name: 'A' });
      const s1 = await createSession(deps, a.user.id);
      const s2 = await createSession(deps, a.user.id, a.workspaces[0]!.id);
      assert.equal((await sessionOf(deps, s1.token))!.activeWorkspaceId, null);
      assert.equal((await sessionOf(deps, s2.token))!.activeWorkspaceId, a.workspaces[0]!.id);
      await setActiveWorkspace(deps, s1.token, 'ws_other');
      assert.equal((await sessionOf(deps, s1.token))!.activeWorkspaceId, 'ws_other');
      assert.equal(await endUserSessions(deps, a.user.id, s2.token), 1);
      assert.equal(await sessionOf(deps, s1.token), undefined);
      assert.ok(await sessionOf(deps, s2.token));
    });

    test('run list pages: newest first, 3 at a time, no row twice or missing, same-time rows ordered by id', async () => {
      const deps = accountsDeps(fx.core);
      const u = await register(deps, { email: 'r@example.com', password: 'correct horse battery', name: 'R' });
      const ws = u.workspaces[0]!.id;
      const at = (i: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, Math.floor(i / 2))).toISOString(); // pairs share a time
      await fx.core.db.run(`INSERT INTO agents (id, workspace_id, owner_user_id, name, instructions, created_at, updated_at) VALUES ('agt_list0000000000000000', ?, ?, 'L', 'x', ?, ?)`, [ws, u.user.id, at(0), at(0)]);
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        const id = `run_${String(i).padStart(20, '0')}`;
        ids.push(id);
        await fx.core.db.run(
          `INSERT INTO runs (id, agent_id, agent_version, workspace_id, user_id, status, input_text, durable, created_at) VALUES (?, 'agt_list0000000000000000', 1, ?, ?, 'completed', 'x', 1, ?)`,
          [id, ws, u.user.id, at(i)],
        );
      }
      const seen: string[] = [];
      let before: string | undefined;
      for (let page = 0; page < 5; page++) {
        const r = await listRunsPage(fx.core.db, { userId: u.user.id, workspaceId: ws, limit: 3, before });
        seen.push(...r.rows.map((x) => x.id));
        assert.ok(r.rows.every((x) => x.agent_name === 'L'));
        before = r.next;
        if (!before) break;
      }
      assert.deepEqual(seen, [...ids].reverse());
      // A malformed cursor is ignored (the first page), never an error.
      assert.equal((await listRunsPage(fx.core.db, { userId: u.user.id, workspaceId: ws, limit: 3, before: "x'; DROP TABLE runs" })).rows[0]!.id, ids[7]);
    });
  });
}
