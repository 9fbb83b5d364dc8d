import { versionRow } from '../agents/repo.ts';
import { toVersion } from '../agents/rows.ts';
import type { AgentVersion } from '../agents/types.ts';
import type { Queryable } from '../store/types.ts';

export async function loadVersion(q: Queryable, agentId: string, version: number): Promise<AgentVersion | undefined> {
  const row = await versionRow(q, agentId, version);
  return row && toVersion(row);
}
