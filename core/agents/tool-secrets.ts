import { badRequest } from '../kernel/errors.ts';
import { isCredentialHeader } from '../tools/http-request.ts';
import type { Vault } from '../vault/index.ts';
import type { AgentTool } from './types.ts';
import type { ToolInput } from './validate.ts';

/**
 * Credential headers of a tool's config (`defaultHeaders.Authorization` of http_request): sealed
 * by the vault at rest like provider keys, shown to readers of the agent only as a preview
 * (`…wxyz`), opened only when the tool runs. Every reader of an agent (viewers, anyone it is shared
 * with) reads its tools; none of them may read the credential.
 *
 * Stored value: `⟨sealed …wxyz⟩v1.<iv>.<tag>.<ct>`. Header values are latin-1 (the tool's schema
 * refuses anything else), so neither this form nor a preview (`…`) can be a real value: a preview
 * sent back in an edit unambiguously means "keep the current value".
 */

const SEALED = /^⟨sealed ([^⟩]*)⟩(v1\..+)$/;
const PREVIEW = /^…[\x21-\x7e]{0,4}$/;
const aad = (agentId: string) => `agent-tool-header:${agentId}`;

/** `…` plus the last 4 characters of a value long enough that they give nothing away. */
export function previewOf(value: string): string {
  return value.length >= 12 ? `…${value.slice(-4)}` : '…';
}

type Headers = Record<string, string>;
const headersOf = (config: Record<string, unknown>): Headers | undefined => {
  const h = config.defaultHeaders;
  return h && typeof h === 'object' && !Array.isArray(h) ? (h as Headers) : undefined;
};

/** `tools` with each credential header's value replaced by `f(name, value)`. */
function mapCredentials<T extends { config?: Record<string, unknown> | undefined }>(tools: readonly T[], f: (tool: T, name: string, value: string) => string): T[] {
  return tools.map((t) => {
    const headers = t.config && headersOf(t.config);
    if (!headers || !Object.keys(headers).some(isCredentialHeader)) return t;
    const next: Headers = {};
    for (const [name, value] of Object.entries(headers)) next[name] = isCredentialHeader(name) ? f(t, name, value) : value;
    return { ...t, config: { ...t.config, defaultHeaders: next } };
  });
}

/** The stored form: every credential header sealed (values already sealed stay as they are). */
export function sealToolSecrets(vault: Vault, agentId: string, tools: readonly AgentTool[]): AgentTool[] {
  return mapCredentials(tools, (_t, _n, v) => (SEALED.test(v) ? v : `⟨sealed ${previewOf(v)}⟩${vault.seal(v, aad(agentId))}`));
}

/** What readers of the agent see: credential headers as previews (plain legacy values too). */
export function maskToolSecrets(tools: readonly AgentTool[]): AgentTool[] {
  return mapCredentials(tools, (_t, _n, v) => SEALED.exec(v)?.[1] ?? previewOf(v));
}

/** The config the tool runs with: credential headers opened. */
export function openToolConfig(vault: Vault, agentId: string, config: Record<string, unknown>): Record<string, unknown> {
  const [tool] = mapCredentials([{ config }], (_t, _n, v) => {
    const m = SEALED.exec(v);
    return m ? vault.open(m[2]!, aad(agentId)) : v;
  });
  return tool!.config!;
}

/**
 * An edit may send back what it read: a credential header whose value is a preview keeps the
 * current value of the same header of the same-named tool (opened here, sealed again after
 * validation). A preview with nothing to keep is refused by name.
 */
export function keepMaskedSecrets(vault: Vault, agentId: string, input: readonly ToolInput[], current: readonly AgentTool[]): ToolInput[] {
  return mapCredentials(input, (t, name, value) => {
    if (!PREVIEW.test(value)) return value;
    const was = current.find((c) => c.name === (t.name ?? t.type) && c.type === t.type);
    const old = was && Object.entries(headersOf(was.config) ?? {}).find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
    if (old === undefined || (SEALED.exec(old)?.[1] ?? previewOf(old)) !== value) {
      const i = input.indexOf(t);
      const field = `tools.${i}.config.defaultHeaders.${name}`;
      throw badRequest('invalid_tool_config', `${field}: "${value}" is the masked preview of a stored value, and this tool has no such value to keep; send the real value.`, field);
    }
    const m = SEALED.exec(old);
    return m ? vault.open(m[2]!, aad(agentId)) : old;
  });
}
