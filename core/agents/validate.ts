import * as z from 'zod';
import { badRequest } from '../kernel/errors.ts';
import { getTool, toolRegistry } from '../tools/registry.ts';
import { DEFAULT_MAX_STEPS, MAX_MAX_STEPS, type AgentSettings, type AgentTool } from './types.ts';

const knownToolTypes = () => [...toolRegistry.keys()];

/** What a caller sends for one tool: name defaults to the type, approval to `never`, config to {}. */
export interface ToolInput {
  type: string;
  name?: string | undefined;
  approval?: 'always' | 'never' | undefined;
  config?: Record<string, unknown> | undefined;
}

/** Function names the providers accept (OpenAI's rule, the strictest of them). */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
export const MAX_TOOLS = 32;

export function validateTools(input: ToolInput[]): AgentTool[] {
  if (input.length > MAX_TOOLS) throw badRequest('invalid_tools', `An agent has at most ${MAX_TOOLS} tools.`, 'tools');
  const seen = new Set<string>();
  return input.map((t, i) => {
    // Each tool's own schema vets its config (and may normalise it, e.g. lower-cased hosts).
    const schema = getTool(t.type)?.config;
    if (!schema) throw badRequest('unknown_tool', `tools.${i}.type: unknown tool type '${t.type}'; known: ${knownToolTypes().join(', ')}.`, `tools.${i}.type`);
    const name = t.name ?? t.type;
    if (!TOOL_NAME.test(name)) throw badRequest('invalid_tool_name', `tools.${i}.name: 1–64 letters, digits, '_' or '-'.`, `tools.${i}.name`);
    if (seen.has(name)) throw badRequest('duplicate_tool_name', `tools.${i}.name: '${name}' is used by another tool of this agent; tool names must be unique.`, `tools.${i}.name`);
    seen.add(name);
    const parsed = schema.safeParse(t.config ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = ['tools', i, 'config', ...issue.path].map(String).join('.');
      throw badRequest('invalid_tool_config', `${field}: ${issue.message}`, field);
    }
    return { type: t.type, name, approval: t.approval ?? 'never', config: parsed.data as Record<string, unknown> };
  });
}

/** Range checks of the settings; absent fields stay absent (the executor applies defaults). */
export const SettingsSchema = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  maxSteps: z.number().int().min(1).max(MAX_MAX_STEPS).optional(),
  maxOutputTokens: z.number().int().positive().max(1_000_000).optional(),
});

export function validateSettings(input: unknown): AgentSettings {
  const parsed = SettingsSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = ['settings', ...issue.path].map(String).join('.');
    throw badRequest('invalid_settings', `${field}: ${issue.message}`, field);
  }
  const out: AgentSettings = {};
  if (parsed.data.temperature !== undefined) out.temperature = parsed.data.temperature;
  if (parsed.data.maxSteps !== undefined) out.maxSteps = parsed.data.maxSteps;
  if (parsed.data.maxOutputTokens !== undefined) out.maxOutputTokens = parsed.data.maxOutputTokens;
  return out;
}

/** The step budget a run of these settings gets. */
export const maxStepsOf = (s: AgentSettings): number => s.maxSteps ?? DEFAULT_MAX_STEPS;
