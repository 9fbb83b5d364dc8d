import type { Clock } from '../kernel/clock.ts';
import { badRequest } from '../kernel/errors.ts';
import type { Db } from '../store/types.ts';
import { conduitOf, upsertConduit } from './repo.ts';
import { FAMILIES } from './router/families.ts';
import type { ConduitOverrides } from './router/route.ts';

/**
 * Per-workspace `service/conduit` overrides, cached. The object keeps its identity
 * until it changes: the router caches plans per object.
 */
export class ConduitSettings {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #cache = new Map<string, { value: ConduitOverrides; until: number }>();

  constructor(deps: { db: Db; clock: Clock }) {
    this.#db = deps.db;
    this.#clock = deps.clock;
  }

  async get(workspaceId: string): Promise<ConduitOverrides> {
    const now = this.#clock.now();
    const hit = this.#cache.get(workspaceId);
    if (hit && hit.until > now) return hit.value;
    const conduit = await conduitOf(this.#db, workspaceId);
    const value = Object.freeze(conduit !== undefined ? (JSON.parse(conduit) as ConduitOverrides) : {});
    // Keep the old object when nothing changed, so router plans stay cached.
    const same = hit && JSON.stringify(hit.value) === JSON.stringify(value);
    this.#cache.set(workspaceId, { value: same ? hit.value : value, until: now + 10_000 });
    return same ? hit.value : value;
  }

  async set(workspaceId: string, overrides: unknown): Promise<ConduitOverrides> {
    const value = validate(overrides);
    const now = new Date(this.#clock.now()).toISOString();
    await upsertConduit(this.#db, workspaceId, JSON.stringify(value), now);
    this.#cache.delete(workspaceId);
    return value;
  }
}

export function validate(v: unknown): ConduitOverrides {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw badRequest('invalid_request', 'Body must be an object like {"families": {"code": ["provider/model", "anthropic/claude-*"]}}.');
  const keys = Object.keys(v);
  if (keys.some((k) => k !== 'families')) throw badRequest('invalid_request', 'Only "families" may be set.', keys.find((k) => k !== 'families'));
  const fam = (v as { families?: unknown }).families;
  if (fam === undefined) return {};
  if (!fam || typeof fam !== 'object' || Array.isArray(fam)) throw badRequest('invalid_request', 'families must be an object.', 'families');
  const out: Record<string, string[]> = {};
  for (const [name, list] of Object.entries(fam)) {
    if (!(FAMILIES as readonly string[]).includes(name)) throw badRequest('invalid_request', `Unknown family "${name}"; families are ${FAMILIES.join(', ')}.`, `families.${name}`);
    if (!Array.isArray(list) || list.length > 50 || !list.every((x) => typeof x === 'string' && x.length > 0 && x.length <= 200)) {
      throw badRequest('invalid_request', 'Each family takes a list of up to 50 model ids or patterns.', `families.${name}`);
    }
    out[name] = list as string[];
  }
  return { families: out };
}
