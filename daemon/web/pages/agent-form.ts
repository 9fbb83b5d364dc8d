// Create and edit; the account follows the model's slug unless picked.
import type { Agent } from '../../../core/agents/types.ts';
import type { ToolInput } from '../../../core/agents/validate.ts';
import type { ProviderAccount } from '../../../core/provider-accounts/types.ts';
import { toolRegistry } from '../../../core/tools/registry.ts';
import { badRequest } from '../../../core/kernel/errors.ts';
import type { Errors, Fields, Form } from '../form.ts';
import { html, nothing, type Html } from '../html.ts';

export function agentValues(a: Agent): Record<string, string> {
  const v: Record<string, string> = {
    name: a.name,
    instructions: a.instructions,
    providerAccountId: a.providerAccountId ?? '',
    model: a.model ?? '',
    temperature: a.settings.temperature?.toString() ?? '',
    maxSteps: a.settings.maxSteps?.toString() ?? '',
    maxOutputTokens: a.settings.maxOutputTokens?.toString() ?? '',
  };
  for (const t of a.tools) {
    v[`tool.${t.type}.enabled`] = 'on';
    v[`tool.${t.type}.approval`] = t.approval;
    if (Object.keys(t.config).length) v[`tool.${t.type}.config`] = JSON.stringify(t.config, null, 2);
  }
  return v;
}

export function agentFields(f: Fields, accounts: ProviderAccount[], models: readonly string[]): Html {
  const tools = [...toolRegistry.values()];
  return html`${f.input('Name', 'name', { required: true, maxlength: 200 })}
${f.textarea('Instructions', 'instructions', { rows: 5, maxlength: 100_000, hint: 'The system prompt every run starts with.' })}
${f.input('Model', 'model', { maxlength: 300, placeholder: models[0] ?? 'slug/model', hint: models.length ? `Offered now: ${models.slice(0, 12).join(', ')}${models.length > 12 ? '…' : ''}` : 'No model is offered yet: add a provider account first.' })}
${f.select('Provider account', 'providerAccountId', [{ value: '', label: 'The one the model belongs to' }, ...accounts.map((a) => ({ value: a.id, label: `${a.name} (${a.slug})` }))])}
<fieldset><legend>Tools</legend>
${tools.map((t) => html`<div class="tool">${f.checkbox(`Use ${t.type}`, `tool.${t.type}.enabled`, { hint: t.description })}
${f.select(`Approval for ${t.type}`, `tool.${t.type}.approval`, [{ value: 'always', label: 'Ask before every call' }, { value: 'never', label: 'Run without asking' }], { value: 'always' })}
${f.textarea(`Settings of ${t.type} (JSON)`, `tool.${t.type}.config`, { rows: 2, maxlength: 20_000, placeholder: '{"allowedHosts": ["api.example.com"]}' })}</div>`)}
</fieldset>
<details><summary>Settings</summary>
${f.input('Temperature', 'temperature', { type: 'number', min: 0, max: 2, step: '0.1' })}
${f.input('Most steps per run', 'maxSteps', { type: 'number', min: 1, max: 50, step: '1', hint: 'Model calls plus tool calls (default 8).' })}
${f.input('Most output tokens', 'maxOutputTokens', { type: 'number', min: 1, step: '1' })}
</details>`;
}

/** The account defaults to the one whose slug prefixes the model. */
export function agentInput(f: Form, accounts: ProviderAccount[]) {
  const model = f.opt('model') ?? null;
  let providerAccountId = f.opt('providerAccountId') ?? null;
  if (!providerAccountId && model?.includes('/')) providerAccountId = accounts.find((a) => a.slug === model.slice(0, model.indexOf('/')))?.id ?? null;
  const tools: ToolInput[] = [];
  for (const type of toolRegistry.keys()) {
    if (!f.has(`tool.${type}.enabled`)) continue;
    const raw = f.opt(`tool.${type}.config`);
    let config: Record<string, unknown> | undefined;
    if (raw) {
      try {
        config = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        throw badRequest('invalid_tool_config', `The settings of ${type} are not valid JSON.`, `tool.${type}.config`);
      }
      if (typeof config !== 'object' || config === null || Array.isArray(config)) throw badRequest('invalid_tool_config', `The settings of ${type} must be a JSON object.`, `tool.${type}.config`);
    }
    tools.push({ type, approval: f.get(`tool.${type}.approval`) === 'never' ? 'never' : 'always', ...(config ? { config } : {}) });
  }
  const num = (name: string) => {
    const v = f.opt(name);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n)) throw badRequest('invalid_settings', `${name} must be a number.`, name);
    return n;
  };
  const settings = Object.fromEntries(Object.entries({ temperature: num('temperature'), maxSteps: num('maxSteps'), maxOutputTokens: num('maxOutputTokens') }).filter(([, v]) => v !== undefined));
  return { name: f.get('name').trim().slice(0, 200), instructions: f.get('instructions').slice(0, 100_000), model, providerAccountId, tools, settings, toolTypes: tools.map((t) => t.type) };
}

/** Points `tools.<i>…` and `settings.<x>` errors at the form's own field. */
export function formFieldOf(errors: Errors, toolTypes: string[]): Errors {
  const out: Errors = {};
  for (const [k, v] of Object.entries(errors)) {
    const tool = /^tools\.(\d+)(?:\.(\w+))?/.exec(k);
    if (tool && toolTypes[Number(tool[1])]) out[`tool.${toolTypes[Number(tool[1])]}.${tool[2] === 'approval' ? 'approval' : 'config'}`] = v;
    else if (k.startsWith('settings.')) out[k.slice('settings.'.length)] = v;
    else out[k] = v;
  }
  return out;
}

