// The runs repo's read-and-close statements on both stores.
import assert from 'node:assert/strict';
import { beforeAll, test } from 'vitest';
import { forEachStore } from '../../../test/helpers/stores.ts';
import { migrate } from '../../store/migrations.ts';
import { anyRunningSince, closeAbandoned, insertRun, runOwner, runWithAgentName } from './runs.ts';

const T0 = '2025-01-01T00:00:00.000Z';
const EDGE = '2025-01-01T00:10:00.000Z';
const NOW = '2025-01-01T00:30:00.000Z';

forEachStore('runs repo', (get) => {
  beforeAll(async () => {
    const { db } = get();
    await migrate(db);
    await db.run("INSERT INTO users (id, email, name, password_hash, created_at) VALUES ('usr_a', 'a@example.com', 'A', 'x', ?)", [T0]);
    await db.run("INSERT INTO workspaces (id, name, created_by, created_at) VALUES ('ws_a', 'W', 'usr_a', ?)", [T0]);
    await db.run("INSERT INTO agents (id, workspace_id, owner_user_id, name, instructions, created_at, updated_at) VALUES ('agt_a', 'ws_a', 'usr_a', 'Helper', 'x', ?, ?)", [T0, T0]);
    const run = (id: string, status: 'running' | 'completed', since: string | null) =>
      insertRun(db, { id, agent_id: 'agt_a', agent_version: 1, workspace_id: 'ws_a', user_id: 'usr_a', conversation_id: null, status, input_text: 'hi', durable: 0, claim_token: 't', created_at: T0, started_at: T0, running_since: since });
    await run('run_old', 'running', T0);
    await run('run_new', 'running', '2025-01-01T00:20:00.000Z');
    await run('run_done', 'completed', T0);
  });

  test('runWithAgentName and runOwner read one run; an unknown id is undefined', async () => {
    const { db } = get();
    const row = await runWithAgentName(db, 'run_old');
    assert.equal(row?.agent_name, 'Helper');
    assert.equal(row?.user_id, 'usr_a');
    assert.equal(await runWithAgentName(db, 'run_none'), undefined);
    assert.deepEqual({ ...(await runOwner(db, 'run_done')) }, { agent_id: 'agt_a', user_id: 'usr_a', workspace_id: 'ws_a' });
  });

  test('closeAbandoned closes only runs still running since before the edge, by run or by agent and user', async () => {
    const { db } = get();
    assert.equal(await anyRunningSince(db, { runId: 'run_new' }, EDGE), false);
    assert.deepEqual(await closeAbandoned(db, { runId: 'run_new' }, NOW, EDGE), []);
    assert.equal(await anyRunningSince(db, { agentId: 'agt_a', userId: 'usr_a' }, EDGE), true);
    assert.deepEqual(await closeAbandoned(db, { agentId: 'agt_a', userId: 'usr_a' }, NOW, EDGE), [{ id: 'run_old' }]);
    const old = await runWithAgentName(db, 'run_old');
    assert.equal(old?.status, 'timed_out');
    assert.equal(old?.error_code, 'run_abandoned');
    assert.equal(old?.finished_at, NOW);
    assert.equal(await anyRunningSince(db, { agentId: 'agt_a', userId: 'usr_a' }, EDGE), false);
  });
});
