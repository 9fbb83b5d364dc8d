import type { Clock } from '../kernel/clock.ts';
import { AppError } from '../kernel/errors.ts';
import type { Logger } from '../kernel/log.ts';
import { listAccounts, targetOf, type ProviderAccountDeps } from '../provider-accounts/service.ts';
import { UpstreamError, type ProviderEngine, type ProviderId, type Target } from '../providers/types.ts';

export interface ExposedModel {
  /** `<account slug>/<upstream model id>` */
  id: string;
  accountId: string;
  provider: ProviderId;
  upstream: string;
}

export interface Resolved {
  model: ExposedModel;
  target: Target;
}

interface WorkspaceView {
  models: Map<string, ExposedModel>;
  /** By account slug. */
  targets: Map<string, Target>;
  /** Slug → why its model list is unavailable. */
  errors: Map<string, string>;
  /** Sorted ids; one array per view, so routing can cache per-array plans. */
  ids: readonly string[];
  until: number;
}

interface AccountCatalogue {
  models: string[] | undefined;
  error: string | undefined;
  until: number;
  loading: Promise<void> | undefined;
}

export const modelNotFound = (id: string) =>
  new AppError('model_not_found', `The model '${id}' does not exist or is not offered to this workspace. GET /api/v1/models lists the available models.`, {
    field: 'model',
    type: 'invalid_request_error',
  });

/**
 * What each workspace may call. An unlisted model is a 404, never a blind forward;
 * the view is cached briefly so hot-path resolution is a map lookup.
 */
export class Catalogue {
  readonly #engine: ProviderEngine;
  readonly #accounts: ProviderAccountDeps;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #ttlMs: number;
  readonly #failTtlMs: number;
  readonly #byAccount = new Map<string, AccountCatalogue>();
  readonly #byWorkspace = new Map<string, WorkspaceView>();
  readonly #building = new Map<string, Promise<WorkspaceView>>();
  readonly #viewTtlMs: number;

  constructor(deps: { engine: ProviderEngine; accounts: ProviderAccountDeps; clock: Clock; log: Logger }, opts: { ttlMs?: number; failTtlMs?: number; viewTtlMs?: number } = {}) {
    this.#engine = deps.engine;
    this.#accounts = deps.accounts;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#ttlMs = opts.ttlMs ?? 5 * 60_000;
    this.#failTtlMs = opts.failTtlMs ?? 30_000;
    this.#viewTtlMs = opts.viewTtlMs ?? 10_000;
  }

  /** Forget cached lists (after an account changes). */
  invalidate(workspaceId?: string, accountId?: string): void {
    if (accountId) this.#byAccount.delete(accountId);
    if (workspaceId) this.#byWorkspace.delete(workspaceId);
    else this.#byWorkspace.clear();
  }

  async #accountModels(target: Target & { models: string[] | null }): Promise<AccountCatalogue> {
    const now = this.#clock.now();
    let c = this.#byAccount.get(target.accountId);
    if (target.models) return { models: target.models, error: undefined, until: Infinity, loading: undefined };
    if (c && c.until > now) return c;
    if (c?.loading) {
      await c.loading;
      return this.#byAccount.get(target.accountId)!;
    }
    c = { models: c?.models, error: c?.error, until: 0, loading: undefined };
    this.#byAccount.set(target.accountId, c);
    const entry = c;
    entry.loading = this.#engine
      .listModels(target, AbortSignal.timeout(10_000))
      .then((models) => {
        entry.models = models;
        entry.error = undefined;
        entry.until = this.#clock.now() + this.#ttlMs;
      })
      .catch((err: unknown) => {
        // Only upstream messages are sanitised; ours may say too much to a member.
        entry.error = err instanceof UpstreamError ? err.message : 'the model list could not be read';
        entry.until = this.#clock.now() + this.#failTtlMs;
        this.#log.warn('model catalogue unavailable', {
          accountId: target.accountId, provider: target.provider, error: entry.error,
          // Only the operator's own URL is logged, never a workspace account's.
          ...(target.provider === 'local' ? { baseUrl: target.baseUrl, variable: 'LOCAL_LLM_BASE_URL' } : {}),
        });
      })
      .finally(() => (entry.loading = undefined));
    await entry.loading;
    return entry;
  }

  async #view(workspaceId: string): Promise<WorkspaceView> {
    const hit = this.#byWorkspace.get(workspaceId);
    if (hit && hit.until > this.#clock.now()) return hit;
    let pending = this.#building.get(workspaceId);
    if (!pending) {
      pending = this.#build(workspaceId).finally(() => this.#building.delete(workspaceId));
      this.#building.set(workspaceId, pending);
    }
    return pending;
  }

  async #build(workspaceId: string): Promise<WorkspaceView> {
    const view: WorkspaceView = { models: new Map(), targets: new Map(), errors: new Map(), ids: [], until: 0 };
    const accounts = (await listAccounts(this.#accounts, workspaceId)).filter((a) => a.enabled);
    await Promise.all(
      accounts.map(async (a) => {
        const t = await targetOf(this.#accounts, workspaceId, a.id);
        if (!t) return;
        view.targets.set(t.slug, t);
        const cat = await this.#accountModels(t);
        if (!cat.models) view.errors.set(t.slug, cat.error ?? 'unavailable');
        for (const m of cat.models ?? []) {
          const id = `${t.slug}/${m}`;
          view.models.set(id, { id, accountId: t.accountId, provider: t.provider, upstream: m });
        }
      }),
    );
    view.ids = Object.freeze([...view.models.keys()].sort());
    view.until = this.#clock.now() + this.#viewTtlMs;
    this.#byWorkspace.set(workspaceId, view);
    return view;
  }

  async models(workspaceId: string): Promise<ExposedModel[]> {
    const v = await this.#view(workspaceId);
    return v.ids.map((id) => v.models.get(id)!);
  }

  /** The exposed ids (sorted; the same array until the view is rebuilt). */
  async ids(workspaceId: string): Promise<readonly string[]> {
    return (await this.#view(workspaceId)).ids;
  }

  /** Accounts whose model list failed, so their models are missing. */
  async unavailable(workspaceId: string): Promise<string[]> {
    return [...(await this.#view(workspaceId)).errors.keys()];
  }

  async resolve(workspaceId: string, modelId: string): Promise<Resolved> {
    const v = await this.#view(workspaceId);
    const model = v.models.get(modelId);
    if (model) return { model, target: v.targets.get(modelId.slice(0, modelId.indexOf('/')))! };
    const slug = modelId.includes('/') ? modelId.slice(0, modelId.indexOf('/')) : undefined;
    const error = slug ? v.errors.get(slug) : undefined;
    if (error) {
      // The local target is operator configuration: name its variable.
      const what = slug === 'local' ? 'the local model target (LOCAL_LLM_BASE_URL)' : `provider account '${slug}'`;
      const fix = slug === 'local' ? ' An operator should check that LOCAL_LLM_BASE_URL is the server\'s OpenAI-compatible base (usually ending in /v1) and that the server runs (svc doctor checks it).' : ' Retry shortly.';
      throw new AppError('catalogue_unavailable', `The model list of ${what} could not be fetched (${error}), so '${modelId}' cannot be verified.${fix}`, {
        field: 'model',
        headers: { 'retry-after': String(Math.ceil(this.#failTtlMs / 1000)) },
      });
    }
    throw modelNotFound(modelId);
  }
}
