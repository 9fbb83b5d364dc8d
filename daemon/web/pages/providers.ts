// Provider accounts: everyone reads (agents name them); keys are never shown again.
import { LOCAL_ACCOUNT_ID, type ProviderAccount } from '../../../core/provider-accounts/types.ts';
import { createAccount, deleteAccount, getAccount, listAccounts, updateAccount } from '../../../core/provider-accounts/service.ts';
import { testConnection, type ConnectionTest } from '../../../core/provider-accounts/test-connection.ts';
import { PROVIDERS } from '../../../core/providers/registry.ts';
import { PROVIDER_IDS } from '../../../core/providers/types.ts';
import { notFound } from '../../../core/kernel/errors.ts';
import { may, type Session, type WebContext } from '../context.ts';
import { button, errorsOf, Fields, form, redirectWith, type Errors, type Form } from '../form.ts';
import { badge, facts, html, nothing, table, time, type Html } from '../html.ts';
import { requireRole, type Web } from '../router.ts';

const CHOICES = PROVIDER_IDS.filter((p) => p !== 'local').map((p) => ({ value: p, label: PROVIDERS[p].label }));
const models = (v: string | undefined) => v?.split(/[\s,]+/).filter(Boolean);

export function providerPages(web: Web): void {
  const { core, services } = web;
  const rt = () => services.gateway;

  const listPage = async (c: WebContext, s: Session, values: Record<string, string> = {}, errors: Errors = {}, status = 200) => {
    const accounts = await listAccounts(rt().accounts, s.workspace.id);
    // Marked rather than hidden when its server does not list its models.
    const unreachable = new Set(await rt().catalogue.unavailable(s.workspace.id));
    const f = new Fields(values, errors, 'pa');
    const admin = may(s, 'admin');
    return web.page(c, {
      title: 'Provider accounts',
      section: '/provider-accounts',
      status,
      body: html`<p>Where this workspace's models come from. Model ids are <code>&lt;slug&gt;/&lt;model&gt;</code>, as <code>/api/v1/models</code> lists them.</p>
${table('Provider accounts', ['Name', 'Provider', 'Slug', 'Key', 'Status', 'Added'], accounts.map((a) => html`<tr><td><a href="/provider-accounts/${a.id}">${a.name}</a></td><td>${PROVIDERS[a.provider]?.label ?? a.provider}</td><td><code>${a.slug}</code></td><td>${a.keyPreview ?? html`<span class="muted">none</span>`}</td><td>${badge(!a.enabled ? 'disabled' : unreachable.has(a.slug) ? 'unreachable' : 'enabled')}</td><td>${a.id === LOCAL_ACCOUNT_ID ? html`<span class="muted">LOCAL_LLM_BASE_URL</span>` : time(a.createdAt)}</td></tr>`), 'No provider account yet.')}
${admin
  ? html`<h2 id="add">Add a provider account</h2>${f.summary()}${form(s.csrf, '/provider-accounts', html`
${f.select('Provider', 'provider', CHOICES, { value: 'openai-compatible' })}
${f.input('Name', 'name', { required: true, maxlength: 200, placeholder: 'Home GPU server' })}
${f.input('Slug', 'slug', { maxlength: 40, hint: 'The prefix of its model ids (lower-case letters, digits, dashes). Default: made from the name.' })}
${f.input('Base URL', 'baseUrl', { type: 'url', maxlength: 2048, hint: 'Needed for OpenAI-compatible servers, e.g. http://gpu-box:8000/v1.' })}
${f.input('API key', 'apiKey', { type: 'password', autocomplete: 'off', maxlength: 4096, hint: 'Stored encrypted; never shown again.' })}
${f.input('Models', 'models', { maxlength: 4000, hint: 'Only these models (separated by commas). Empty: whatever the server lists.' })}
<button type="submit">Add account</button>`, { label: 'Add a provider account' })}`
  : html`<p class="muted">Admins and owners add provider accounts.</p>`}`,
    });
  };

  const detailPage = async (c: WebContext, s: Session, a: ProviderAccount, o: { test?: ConnectionTest; values?: Record<string, string>; errors?: Errors; status?: number } = {}) => {
    const admin = may(s, 'admin');
    const local = a.id === LOCAL_ACCOUNT_ID;
    const exposed = (await rt().catalogue.models(s.workspace.id)).filter((m) => m.accountId === a.id).map((m) => m.id);
    const f = new Fields(o.values ?? {}, o.errors ?? {}, 'edit');
    return web.page(c, {
      title: a.name,
      section: '/provider-accounts',
      status: o.status ?? 200,
      body: html`${facts([
        ['Provider', PROVIDERS[a.provider]?.label ?? a.provider],
        ['Slug', html`<code>${a.slug}</code>`],
        ['Base URL', a.baseUrl ? html`<code>${a.baseUrl}</code>` : html`<span class="muted">the provider's default</span>`],
        ['API key', a.keyPreview ?? html`<span class="muted">none</span>`],
        ['Model allowlist', a.models?.join(', ') ?? html`<span class="muted">all the server lists</span>`],
        ['Status', badge(a.enabled ? 'enabled' : 'disabled')],
      ])}
${o.test ? testResult(o.test) : nothing}
${admin ? html`<div class="actions">${button(s.csrf, `/provider-accounts/${a.id}/test`, 'Test the connection')}${local ? nothing : button(s.csrf, `/provider-accounts/${a.id}/delete`, 'Delete account', { danger: true })}</div>` : nothing}
<h2>Models offered</h2>
${exposed.length ? html`<ul>${exposed.map((m) => html`<li><code>${m}</code></li>`)}</ul>` : html`<p class="muted">No model is offered from this account right now${admin ? ' (test the connection to see why)' : ''}.</p>`}
${admin && !local
  ? html`<h2>Edit</h2>${f.summary()}${form(s.csrf, `/provider-accounts/${a.id}`, html`
${f.input('Name', 'name', { required: true, maxlength: 200, value: a.name })}
${f.input('Base URL', 'baseUrl', { type: 'url', maxlength: 2048, value: a.baseUrl ?? '' })}
${f.input('New API key', 'apiKey', { type: 'password', autocomplete: 'off', maxlength: 4096, hint: 'Leave empty to keep the current key.' })}
${f.input('Models', 'models', { maxlength: 4000, value: a.models?.join(', ') ?? '', hint: 'Separated by commas; empty: all the server lists.' })}
${f.checkbox('Enabled', 'enabled', { checked: a.enabled })}
<button type="submit">Save</button>`, { label: 'Edit the provider account' })}`
  : nothing}
<p><a href="/provider-accounts">All provider accounts</a></p>`,
    });
  };

  const account = async (s: Session, id: string) => {
    const a = await getAccount(rt().accounts, s.workspace.id, id);
    if (!a) throw notFound('Provider account');
    return a;
  };

  web.get('/provider-accounts', (c, s) => listPage(c, s));

  web.post('/provider-accounts', async (c, s, f: Form) => {
    requireRole(s, 'admin');
    try {
      const a = await createAccount(rt().accounts, s.workspace.id, s.user.id, {
        provider: f.get('provider'), name: f.get('name').trim().slice(0, 200), slug: f.opt('slug'), apiKey: f.opt('apiKey'), baseUrl: f.opt('baseUrl'), models: models(f.opt('models')),
      });
      rt().catalogue.invalidate(s.workspace.id);
      return redirectWith(core, c, `/provider-accounts/${a.id}`, `Added ${a.name}. Test the connection to see its models.`);
    } catch (err) {
      const { status, errors } = errorsOf(err);
      return listPage(c, s, f.values(), errors, status);
    }
  });

  web.get('/provider-accounts/:id', async (c, s) => detailPage(c, s, await account(s, c.req.param('id')!)));

  web.post('/provider-accounts/:id', async (c, s, f) => {
    requireRole(s, 'admin');
    const a = await account(s, c.req.param('id')!);
    try {
      const updated = await updateAccount(rt().accounts, s.workspace.id, a.id, {
        name: f.get('name').trim().slice(0, 200) || undefined,
        baseUrl: f.opt('baseUrl') ?? null,
        ...(f.opt('apiKey') ? { apiKey: f.opt('apiKey') } : {}),
        models: models(f.opt('models')) ?? null,
        enabled: f.has('enabled'),
      });
      rt().catalogue.invalidate(s.workspace.id, a.id);
      return redirectWith(core, c, `/provider-accounts/${updated.id}`, 'Saved.');
    } catch (err) {
      const { status, errors } = errorsOf(err);
      return detailPage(c, s, a, { values: f.values(), errors, status });
    }
  });

  web.post('/provider-accounts/:id/test', async (c, s) => {
    requireRole(s, 'admin');
    const a = await account(s, c.req.param('id')!);
    const r = await testConnection(services.providerTests, s.workspace.id, a.id);
    if (r.ok) rt().catalogue.invalidate(s.workspace.id, a.id);
    return detailPage(c, s, a, { test: r });
  });

  web.post('/provider-accounts/:id/delete', async (c, s) => {
    requireRole(s, 'admin');
    const a = await account(s, c.req.param('id')!);
    await deleteAccount(rt().accounts, s.workspace.id, a.id);
    rt().catalogue.invalidate(s.workspace.id, a.id);
    return redirectWith(core, c, '/provider-accounts', `Deleted ${a.name}.`);
  });
}

function testResult(t: ConnectionTest): Html {
  return t.ok
    ? html`<div class="alert ok" role="status"><p><strong>Connected</strong> in ${t.latencyMs} ms: ${t.models!.length} model${t.models!.length === 1 ? '' : 's'} listed.</p>${t.models!.length ? html`<ul>${t.models!.slice(0, 50).map((m) => html`<li><code>${m}</code></li>`)}</ul>` : nothing}</div>`
    : html`<div class="alert error" role="alert"><p><strong>The connection failed</strong> (${t.error!.code}).</p><p>${t.error!.message}</p></div>`;
}
