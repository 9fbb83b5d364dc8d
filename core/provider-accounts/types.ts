import type { ProviderId } from '../providers/types.ts';

export const LOCAL_ACCOUNT_ID = 'pa_local';

export interface ProviderAccount {
  id: string;
  workspaceId: string | null;
  provider: ProviderId;
  name: string;
  /** Model ids of this account are `<slug>/<model>`. */
  slug: string;
  baseUrl: string | null;
  /** `…abcd` — the only part of the key ever shown. */
  keyPreview: string | null;
  models: string[] | null;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface AccountRow {
  id: string;
  workspace_id: string;
  provider: ProviderId;
  name: string;
  slug: string;
  base_url: string | null;
  api_key_enc: string | null;
  key_last4: string | null;
  models: string | null;
  enabled: number;
  created_at: string;
  updated_at: string;
}

export function toAccount(r: AccountRow): ProviderAccount {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    provider: r.provider,
    name: r.name,
    slug: r.slug,
    baseUrl: r.base_url,
    keyPreview: r.key_last4 ? `…${r.key_last4}` : null,
    models: r.models ? (JSON.parse(r.models) as string[]) : null,
    enabled: r.enabled === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
