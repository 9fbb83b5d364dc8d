import type { Clock } from '../kernel/clock.ts';
import { AppError, badRequest, conflict, notFound } from '../kernel/errors.ts';
import { newId } from '../kernel/ids.ts';
import { AddressRefused, addressPolicy, vetHost } from '../net/address-guard.ts';
import { PROVIDER_IDS, type ProviderId, type Target } from '../providers/types.ts';
import type { Resolver } from '../net/http-guard.ts';
import { UniqueViolation, type Db, type SqlValue } from '../store/types.ts';
import type { Vault } from '../vault/index.ts';
import { providerDefaults } from './defaults.ts';
import * as repo from './repo.ts';
import { LOCAL_ACCOUNT_ID, toAccount, type AccountRow, type ProviderAccount } from './types.ts';

export interface ProviderAccountDeps {
  db: Db;
  clock: Clock;
  vault: Vault;
  /** LOCAL_LLM_BASE_URL (or its alias): the local target, offered in every workspace. */
  localBaseUrl: string | undefined;
  /** SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: private hosts a baseUrl may reach. */
  allowedPrivateHosts: readonly string[];
  /** For tests; default: the system resolver. */
  resolve?: Resolver;
}

export interface AccountInput {
  provider: string;
  name: string;
  slug?: string | undefined;
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
  models?: string[] | undefined;
}

export interface AccountPatch {
  name?: string | undefined;
  apiKey?: string | null | undefined;
  baseUrl?: string | null | undefined;
  models?: string[] | null | undefined;
  enabled?: boolean | undefined;
}

const SLUG = /^[a-z0-9][a-z0-9-]{0,39}$/;
const iso = (ms: number) => new Date(ms).toISOString();

export function localAccount(deps: Pick<ProviderAccountDeps, 'localBaseUrl'>): ProviderAccount | undefined {
  if (!deps.localBaseUrl) return undefined;
  return {
    id: LOCAL_ACCOUNT_ID,
    workspaceId: null,
    provider: 'local',
    name: 'Local model server',
    slug: 'local',
    baseUrl: deps.localBaseUrl.replace(/\/+$/, ''),
    keyPreview: null,
    models: null,
    enabled: true,
    createdAt: new Date(0).toISOString(),
    updatedAt: new Date(0).toISOString(),
  };
}

/** After this, the connect-time guard decides. */
const DNS_CHECK_MS = 3000;

/**
 * Checked here for a clear 400; the engine checks again per connection,
 * since a name may resolve elsewhere later.
 */
async function checkBaseUrl(deps: ProviderAccountDeps, v: string): Promise<string> {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw badRequest('invalid_base_url', 'baseUrl must be an absolute http(s) URL.', 'baseUrl');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw badRequest('invalid_base_url', 'baseUrl must use http or https.', 'baseUrl');
  if (u.username || u.password) throw badRequest('invalid_base_url', 'Put credentials in apiKey, not in baseUrl.', 'baseUrl');
  try {
    const signal = AbortSignal.timeout(DNS_CHECK_MS);
    await Promise.race([
      vetHost(addressPolicy(deps.allowedPrivateHosts), u.hostname, deps.resolve),
      new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
    ]);
  } catch (err) {
    if (err instanceof AddressRefused) {
      throw badRequest(
        'base_url_not_public',
        `baseUrl points at ${u.hostname}, which is not a public address (${err.addressClass}). Provider accounts may only reach public addresses; ` +
          'an operator can allow a model server on the local network with SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS, or offer it to every workspace with LOCAL_LLM_BASE_URL.',
        'baseUrl',
      );
    }
    // DNS failed or was slow: the connect-time guard still applies.
  }
  return u.toString().replace(/\/+$/, '');
}

export async function createAccount(deps: ProviderAccountDeps, workspaceId: string, userId: string, input: AccountInput): Promise<ProviderAccount> {
  if (!(PROVIDER_IDS as readonly string[]).includes(input.provider) || input.provider === 'local') {
    throw badRequest('invalid_provider', `provider must be one of ${PROVIDER_IDS.filter((p) => p !== 'local').join(', ')} (the local target comes from LOCAL_LLM_BASE_URL).`, 'provider');
  }
  const provider = input.provider as ProviderId;
  const d = providerDefaults(provider);
  const candidates = input.slug !== undefined ? [input.slug] : derivedSlugs(input.name, provider);
  const slug = candidates[0]!;
  if (!SLUG.test(slug) || slug === 'local' || slug === 'service') {
    throw badRequest('invalid_slug', 'slug must be 1–40 lower-case letters, digits or dashes, and not "local" or "service".', 'slug');
  }
  if (d.requiresBaseUrl && !input.baseUrl) throw badRequest('base_url_required', `${provider} needs a baseUrl.`, 'baseUrl');
  if (d.requiresKey && !input.apiKey) throw badRequest('api_key_required', `${provider} needs an apiKey.`, 'apiKey');
  const baseUrl = input.baseUrl ? await checkBaseUrl(deps, input.baseUrl) : null;
  const id = newId('pa');
  const now = iso(deps.clock.now());
  // A derived slug takes the next free suffix; an explicit one may be refused.
  for (const [i, slug] of candidates.entries()) {
    try {
      await repo.insertAccount(deps.db, {
        id,
        workspace_id: workspaceId,
        provider,
        name: input.name,
        slug,
        base_url: baseUrl,
        api_key_enc: input.apiKey ? deps.vault.seal(input.apiKey, id) : null,
        key_last4: input.apiKey ? input.apiKey.slice(-4) : null,
        models: input.models ? JSON.stringify(input.models) : null,
        created_by: userId,
        created_at: now,
      });
      break;
    } catch (err) {
      if (!(err instanceof UniqueViolation)) throw err;
      if (i === candidates.length - 1) throw conflict('slug_taken', `Another provider account in this workspace already uses the slug "${slug}"; pass a different slug.`);
    }
  }
  return (await getAccount(deps, workspaceId, id))!;
}

/** `Home Ollama` → home-ollama, home-ollama-2 … -9; else the provider's id. */
export function derivedSlugs(name: string, provider: string): string[] {
  let base = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 37).replace(/-+$/, '');
  if (!SLUG.test(base) || base === 'local' || base === 'service') base = provider;
  return [base, ...Array.from({ length: 8 }, (_, i) => `${base}-${i + 2}`)];
}

async function getRow(deps: ProviderAccountDeps, workspaceId: string, id: string): Promise<AccountRow | undefined> {
  return repo.accountRow(deps.db, workspaceId, id);
}

export async function getAccount(deps: ProviderAccountDeps, workspaceId: string, id: string): Promise<ProviderAccount | undefined> {
  if (id === LOCAL_ACCOUNT_ID) return localAccount(deps);
  const row = await getRow(deps, workspaceId, id);
  return row && toAccount(row);
}

/** The workspace's accounts, the local target first when configured. */
export async function listAccounts(deps: ProviderAccountDeps, workspaceId: string): Promise<ProviderAccount[]> {
  const rows = await repo.accountRows(deps.db, workspaceId);
  const local = localAccount(deps);
  return [...(local ? [local] : []), ...rows.map(toAccount)];
}

export async function updateAccount(deps: ProviderAccountDeps, workspaceId: string, id: string, patch: AccountPatch): Promise<ProviderAccount> {
  if (id === LOCAL_ACCOUNT_ID) throw new AppError('local_account_fixed', 'The local target is configured by LOCAL_LLM_BASE_URL, not through the API.');
  const row = await getRow(deps, workspaceId, id);
  if (!row) throw notFound('Provider account');
  const d = providerDefaults(row.provider);
  const cols: Record<string, SqlValue> = {};
  const set = (col: string, v: string | number | null) => (cols[col] = v);
  if (patch.name !== undefined) set('name', patch.name);
  if (patch.enabled !== undefined) set('enabled', patch.enabled ? 1 : 0);
  if (patch.models !== undefined) set('models', patch.models === null ? null : JSON.stringify(patch.models));
  if (patch.baseUrl !== undefined) {
    if (patch.baseUrl === null && d.requiresBaseUrl) throw badRequest('base_url_required', `${row.provider} needs a baseUrl.`, 'baseUrl');
    set('base_url', patch.baseUrl === null ? null : await checkBaseUrl(deps, patch.baseUrl));
  }
  if (patch.apiKey !== undefined) {
    if (patch.apiKey === null && d.requiresKey) throw badRequest('api_key_required', `${row.provider} needs an apiKey.`, 'apiKey');
    set('api_key_enc', patch.apiKey === null ? null : deps.vault.seal(patch.apiKey, id));
    set('key_last4', patch.apiKey === null ? null : patch.apiKey.slice(-4));
  }
  set('updated_at', iso(deps.clock.now()));
  await repo.updateAccountColumns(deps.db, workspaceId, id, cols);
  return (await getAccount(deps, workspaceId, id))!;
}

export async function deleteAccount(deps: ProviderAccountDeps, workspaceId: string, id: string): Promise<void> {
  if (id === LOCAL_ACCOUNT_ID) throw new AppError('local_account_fixed', 'The local target is configured by LOCAL_LLM_BASE_URL; unset it to remove the local target.');
  if (!(await repo.softDeleteAccount(deps.db, workspaceId, id, iso(deps.clock.now())))) throw notFound('Provider account');
}

/** Where to send a call for this account, key decrypted. Undefined when missing or disabled. */
export async function targetOf(deps: ProviderAccountDeps, workspaceId: string, id: string): Promise<(Target & { slug: string; models: string[] | null }) | undefined> {
  if (id === LOCAL_ACCOUNT_ID) {
    const l = localAccount(deps);
    // The operator's own: the only account trusted to reach private addresses.
    return l && { accountId: l.id, provider: 'local', baseUrl: l.baseUrl!, apiKey: undefined, slug: 'local', models: null, trusted: true };
  }
  const row = await getRow(deps, workspaceId, id);
  if (!row || row.enabled !== 1) return undefined;
  const d = providerDefaults(row.provider);
  return {
    accountId: row.id,
    provider: row.provider,
    baseUrl: row.base_url ?? d.baseUrl!,
    apiKey: row.api_key_enc ? deps.vault.open(row.api_key_enc, row.id) : undefined,
    slug: row.slug,
    models: row.models ? (JSON.parse(row.models) as string[]) : null,
  };
}
