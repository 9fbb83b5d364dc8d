/** How a tool is attached to an agent. */
export interface AgentTool {
  /** A built-in tool type from core/tools (e.g. `http_request`). */
  type: string;
  /** Name the model sees; defaults to the type. Unique within the agent. */
  name: string;
  /** `always`: every call stops the run in waiting_input until a person approves it. */
  approval: 'always' | 'never';
  /** Tool-specific settings (validated by the tool's own schema). */
  config: Record<string, unknown>;
}

export interface AgentSettings {
  temperature?: number;
  /** Model calls plus tool calls one run may make (default 8, at most 50). */
  maxSteps?: number;
  maxOutputTokens?: number;
}

export const DEFAULT_MAX_STEPS = 8;
export const MAX_MAX_STEPS = 50;

export interface Agent {
  id: string;
  workspaceId: string;
  ownerUserId: string;
  name: string;
  instructions: string;
  providerAccountId: string | null;
  /** As GET /api/v1/models lists it, e.g. `openai/gpt-4.1-mini`. */
  model: string | null;
  tools: AgentTool[];
  settings: AgentSettings;
  sharedWithWorkspace: boolean;
  /** 0 while never published. */
  latestVersion: number;
  createdAt: string;
  updatedAt: string;
}

/** An immutable published snapshot: runs execute a version, never the draft. */
export interface AgentVersion {
  agentId: string;
  workspaceId: string;
  version: number;
  name: string;
  instructions: string;
  providerAccountId: string | null;
  model: string | null;
  tools: AgentTool[];
  settings: AgentSettings;
  publishedBy: string;
  publishedAt: string;
}
