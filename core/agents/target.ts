import { AppError, badRequest } from '../kernel/errors.ts';
import type { Resolved } from '../gateway/catalogue.ts';
import type { GatewayRuntime } from '../gateway/runtime.ts';
import { getAccount, type ProviderAccountDeps } from '../provider-accounts/service.ts';
import { LOCAL_ACCOUNT_ID } from '../provider-accounts/types.ts';
import type { TargetAccount } from './access.ts';
import type { AgentVersion } from './types.ts';

const ADVICE = 'Re-select the provider account and model on the agent and publish it again.';

export const accountInvalid = (why: string) => badRequest('provider_account_invalid', `${why} ${ADVICE}`, 'providerAccountId');
export const modelInvalid = (why: string) => badRequest('model_invalid', `${why} ${ADVICE}`, 'model');

/**
 * Where a version's model calls go. Everything that can have gone stale since publishing is checked
 * here, at run time: the account (missing, disabled, deleted → providerAccountId) and the model
 * (missing, of another account, or no longer offered → model). A catalogue that cannot be fetched
 * stays its own 502: that is the provider's outage, not the agent's mistake.
 */
export async function checkVersionTarget(
  rt: GatewayRuntime,
  v: Pick<AgentVersion, 'workspaceId' | 'providerAccountId' | 'model'>,
  /** The account row as the caller already read it (runnableTarget; null = none in the store). */
  preloaded?: TargetAccount | null,
): Promise<Resolved> {
  if (!v.providerAccountId) throw accountInvalid('This agent version has no provider account.');
  // The local target lives in the configuration, not in the store: always looked up.
  const account: TargetAccount | undefined | null =
    preloaded !== undefined && v.providerAccountId !== LOCAL_ACCOUNT_ID ? preloaded : await getAccount(rt.accounts, v.workspaceId, v.providerAccountId);
  if (!account) throw accountInvalid(`The provider account '${v.providerAccountId}' of this agent version no longer exists.`);
  if (!account.enabled) throw accountInvalid(`The provider account '${account.slug}' of this agent version is disabled.`);
  if (!v.model) throw modelInvalid('This agent version has no model.');
  if (!v.model.startsWith(`${account.slug}/`)) throw modelInvalid(`The model '${v.model}' does not belong to the provider account '${account.slug}' (its models are named '${account.slug}/…').`);
  let resolved: Resolved;
  try {
    resolved = await rt.catalogue.resolve(v.workspaceId, v.model);
  } catch (err) {
    if (err instanceof AppError && err.code === 'model_not_found') throw modelInvalid(`The model '${v.model}' is not offered by the provider account '${account.slug}'.`);
    throw err;
  }
  if (resolved.model.accountId !== account.id) throw modelInvalid(`The model '${v.model}' is not offered by the provider account '${account.slug}'.`);
  return resolved;
}

/**
 * Cheap draft-time checks (no provider call): a named account must exist in the workspace, and a
 * model must be named as `<account slug>/<model>`. Whether the model is offered is checked at publish.
 */
export async function checkDraftTarget(accounts: ProviderAccountDeps, workspaceId: string, providerAccountId: string | null, model: string | null): Promise<void> {
  let slug: string | undefined;
  if (providerAccountId) {
    const account = await getAccount(accounts, workspaceId, providerAccountId);
    if (!account) throw badRequest('provider_account_invalid', `No provider account '${providerAccountId}' in this workspace; GET /api/app/provider-accounts lists them.`, 'providerAccountId');
    slug = account.slug;
  }
  if (model) {
    const at = model.indexOf('/');
    if (at <= 0 || at === model.length - 1) throw badRequest('model_invalid', `model must be named as GET /api/v1/models lists it: '<account slug>/<model>'.`, 'model');
    if (slug && model.slice(0, at) !== slug) throw badRequest('model_invalid', `The model '${model}' does not belong to the provider account '${slug}' (its models are named '${slug}/…').`, 'model');
  }
}
