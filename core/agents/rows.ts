import type { Agent, AgentSettings, AgentTool, AgentVersion } from './types.ts';

/** Row shapes of agents / agent_versions (JSON as text, booleans as 0/1: identical in both dialects). */
export interface AgentRow {
  id: string;
  workspace_id: string;
  owner_user_id: string;
  name: string;
  instructions: string;
  provider_account_id: string | null;
  model: string | null;
  tools: string;
  settings: string;
  shared_with_workspace: number;
  latest_version: number;
  created_at: string;
  updated_at: string;
}

export interface VersionRow {
  agent_id: string;
  workspace_id: string;
  version: number;
  name: string;
  instructions: string;
  provider_account_id: string | null;
  model: string | null;
  tools: string;
  settings: string;
  published_by: string;
  published_at: string;
}

export function toAgent(r: AgentRow): Agent {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    ownerUserId: r.owner_user_id,
    name: r.name,
    instructions: r.instructions,
    providerAccountId: r.provider_account_id,
    model: r.model,
    tools: JSON.parse(r.tools) as AgentTool[],
    settings: JSON.parse(r.settings) as AgentSettings,
    sharedWithWorkspace: Number(r.shared_with_workspace) === 1,
    latestVersion: Number(r.latest_version),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function toVersion(r: VersionRow): AgentVersion {
  return {
    agentId: r.agent_id,
    workspaceId: r.workspace_id,
    version: Number(r.version),
    name: r.name,
    instructions: r.instructions,
    providerAccountId: r.provider_account_id,
    model: r.model,
    tools: JSON.parse(r.tools) as AgentTool[],
    settings: JSON.parse(r.settings) as AgentSettings,
    publishedBy: r.published_by,
    publishedAt: r.published_at,
  };
}
