import { toVersion, VERSION_COLUMNS, type VersionRow } from '../agents/rows.ts';
import type { AgentVersion } from '../agents/types.ts';
import type { Queryable } from '../store/types.ts';

export async function loadVersion(q: Queryable, agentId: string, version: number): Promise<AgentVersion | undefined> {
  const row = await q.one<VersionRow>(`SELECT ${VERSION_COLUMNS} FROM agent_versions v JOIN agents a ON a.id = v.agent_id WHERE v.agent_id = ? AND v.version = ?`, [agentId, version]);
  return row && toVersion(row);
}
