// Concurrent sign-ups on both stores: one invitation token admits exactly one account, and two
// racing registrations on an empty store give exactly one bootstrap owner.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import type { Dialect } from '../../core/store/types.ts';
import { createApp, type App } from '../../daemon/app.ts';
import { invite, jsonInit, userCount } from './accounts-helpers.ts';
import { testCore, type Fixture } from './http-fixture.ts';

const RACERS = 6;

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`concurrent registration [${store}]`, () => {
    let fx: Fixture;
    let app: App;
    beforeAll(async () => {
      fx = await testCore({ store });
      app = createApp(fx.core, fx.services);
    });
    afterAll(() => fx.cleanup());

    test('racing bootstraps on an empty store: exactly one owner of the operator workspace', async () => {
      const results = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          app.request('/api/auth/register', jsonInit('POST', { email: `boot${i}@example.com`, password: 'correct horse battery' })),
        ),
      );
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [201, ...Array<number>(RACERS - 1).fill(403)], 'one bootstrap; the rest need an invitation (invite_only)');
      assert.equal(await userCount(fx.core), 1);
      const ops = await fx.core.db.all('SELECT id FROM workspaces WHERE is_operator = 1');
      assert.equal(ops.length, 1);
    });

    test('one token, several simultaneous sign-ups: exactly one account, the invitation spent once', async () => {
      const owner = await fx.core.db.one<{ user_id: string; workspace_id: string }>(
        "SELECT m.user_id, m.workspace_id FROM memberships m JOIN workspaces w ON w.id = m.workspace_id WHERE w.is_operator = 1 AND m.role = 'owner'",
      );
      const inv = await invite(fx.core, owner!.workspace_id, 'racer@example.com', 'member', owner!.user_id);
      const before = await userCount(fx.core);
      const results = await Promise.all(
        Array.from({ length: RACERS }, () =>
          app.request('/api/auth/register', jsonInit('POST', { email: 'racer@example.com', password: 'correct horse battery', invitationToken: inv.token })),
        ),
      );
      const winners = results.filter((r) => r.status === 201);
      assert.equal(winners.length, 1, `statuses: ${results.map((r) => r.status).join(',')}`);
      for (const r of results.filter((x) => x.status !== 201)) assert.ok([403, 409].includes(r.status), `loser status ${r.status}`);
      assert.equal(await userCount(fx.core), before + 1);
      const winner = (await winners[0]!.json()) as { user: { id: string } };
      const row = await fx.core.db.one<{ used_by: string }>('SELECT used_by FROM invitations WHERE id = ?', [inv.id]);
      assert.equal(row!.used_by, winner.user.id);
      const joined = await fx.core.db.all('SELECT user_id FROM memberships WHERE workspace_id = ? AND user_id = ?', [owner!.workspace_id, winner.user.id]);
      assert.equal(joined.length, 1);
      // Afterwards the token admits nobody.
      const late = await app.request('/api/auth/register', jsonInit('POST', { email: 'racer@example.com', password: 'another password', invitationToken: inv.token }));
      assert.equal(late.status, 403);
    });
  });
}
