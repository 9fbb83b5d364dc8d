import { PROVIDERS } from '../providers/registry.ts';
import type { ProviderId } from '../providers/types.ts';

export interface ProviderDefaults {
  baseUrl: string | undefined;
  requiresBaseUrl: boolean;
  requiresKey: boolean;
}

/** What an account of this provider must carry, from the provider list. */
export function providerDefaults(p: ProviderId): ProviderDefaults {
  const spec = PROVIDERS[p];
  return { baseUrl: spec.defaultBaseUrl, requiresBaseUrl: spec.defaultBaseUrl === undefined, requiresKey: spec.keyRequired };
}
