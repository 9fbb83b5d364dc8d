import type { Config } from '../kernel/config/load.ts';
import { createAppTool } from './create-app.ts';
import { httpRequestTool } from './http-request.ts';
import { createRunCodeTool, runCodeTool } from './run-code.ts';
import type { ToolDefinition, ToolLimits } from './types.ts';

/** Adding a tool: a file exporting a ToolDefinition, and one line here. */
const BUILT_IN: ToolDefinition[] = [
  httpRequestTool,
  createAppTool,
  runCodeTool,
];

export const toolRegistry: ReadonlyMap<string, ToolDefinition> = new Map(BUILT_IN.map((t) => [t.type, t]));

export function getTool(type: string): ToolDefinition | undefined {
  return toolRegistry.get(type);
}

/** getTool, with run_code described in the configured sandbox language. */
export function toolLookup(config: Pick<Config, 'SERVICE_SANDBOX_RUNTIME'>): (type: string) => ToolDefinition | undefined {
  const runCode = createRunCodeTool(config.SERVICE_SANDBOX_RUNTIME);
  return (type) => (type === 'run_code' ? runCode : getTool(type));
}

/** From the SERVICE_TOOL_* variables. */
export function toolLimitsFromConfig(
  config: Pick<
    Config,
    | 'SERVICE_TOOL_HTTP_TIMEOUT_MS'
    | 'SERVICE_TOOL_HTTP_MAX_RESPONSE_BYTES'
    | 'SERVICE_TOOL_HTTP_MAX_REQUEST_BYTES'
    | 'SERVICE_TOOL_HTTP_ALLOW_PRIVATE'
    | 'SERVICE_TOOL_HTTP_ALLOWED_HOSTS'
  >,
): ToolLimits {
  return {
    httpTimeoutMs: config.SERVICE_TOOL_HTTP_TIMEOUT_MS,
    httpMaxResponseBytes: config.SERVICE_TOOL_HTTP_MAX_RESPONSE_BYTES,
    httpMaxRequestBytes: config.SERVICE_TOOL_HTTP_MAX_REQUEST_BYTES,
    httpAllowPrivate: config.SERVICE_TOOL_HTTP_ALLOW_PRIVATE,
    httpAllowedHosts: [...config.SERVICE_TOOL_HTTP_ALLOWED_HOSTS],
  };
}
