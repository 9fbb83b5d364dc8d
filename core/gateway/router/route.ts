/**
 * Pure; the candidate order is in docs/conduit.md.
 * Memoised on exposedModels' and overrides' identity: never mutate them once passed.
 */
import { AppError } from '../../kernel/errors.ts';
import type { ChatRequest } from '../../wire/openai.ts';
import { classify } from './classify.ts';
import type { Classification, ClassifyOptions, Task } from './classify.ts';
import {
  DEFAULT_FAMILY_MODELS,
  NON_CHAT_MODELS,
  TASK_FAMILY,
  TEXT_ONLY_MODELS,
  matches,
  matchesAny,
} from './families.ts';
import type { Family } from './families.ts';

export const CONDUIT_MODEL = 'service/conduit';

export interface ConduitOverrides {
  /** Per family; they go before the defaults. */
  families?: Partial<Record<Family, string[]>>;
}

interface RouteBase {
  task: Task;
  family: Family;
  candidates: string[];
  reasons: string[];
  classification: Classification;
}
export interface RouteDecision extends RouteBase {
  ok: true;
  chosen: string;
}
export interface RouteFailure extends RouteBase {
  ok: false;
  chosen: null;
  error: { status: 400 | 404; code: 'model_not_found' | 'model_not_capable'; message: string };
}
export type RouteResult = RouteDecision | RouteFailure;

type Plan =
  | { ok: true; candidates: readonly string[]; notes: readonly string[] }
  | { ok: false; error: RouteFailure['error']; notes: readonly string[] };

const NO_OVERRIDES: ConduitOverrides = Object.freeze({});
const plans = new WeakMap<readonly string[], WeakMap<ConduitOverrides, Map<Family, Plan>>>();

export function isConduit(model: string): boolean {
  return model.toLowerCase() === CONDUIT_MODEL;
}

export function route(
  req: ChatRequest,
  exposedModels: readonly string[],
  overrides: ConduitOverrides = NO_OVERRIDES,
  opts: ClassifyOptions = {},
): RouteResult {
  const classification = classify(req, opts);
  const { task } = classification;
  const family = TASK_FAMILY[task];
  const reasons = [...classification.reasons, `task ${task} → family ${family}`];
  const plan = cachedPlan(exposedModels, overrides, family);
  reasons.push(...plan.notes);
  const base = { task, family, classification, reasons };
  if (!plan.ok) return { ...base, ok: false, chosen: null, candidates: [], error: plan.error };
  return { ...base, ok: true, chosen: plan.candidates[0]!, candidates: [...plan.candidates] };
}

function cachedPlan(exposed: readonly string[], overrides: ConduitOverrides, family: Family): Plan {
  let byOverrides = plans.get(exposed);
  if (!byOverrides) plans.set(exposed, (byOverrides = new WeakMap()));
  let byFamily = byOverrides.get(overrides);
  if (!byFamily) byOverrides.set(overrides, (byFamily = new Map()));
  let plan = byFamily.get(family);
  if (!plan) byFamily.set(family, (plan = planFor(exposed, overrides, family)));
  return plan;
}

function planFor(exposed: readonly string[], overrides: ConduitOverrides, family: Family): Plan {
  const notes: string[] = [];
  const chat = exposed.filter((id) => !matchesAny(NON_CHAT_MODELS, id));
  if (chat.length === 0) {
    const message =
      exposed.length === 0
        ? 'No models are exposed to this workspace; add a provider account or configure the local target.'
        : 'None of the models exposed to this workspace can serve chat requests (only embeddings, audio or image models).';
    return { ok: false, notes: [message], error: { status: 404, code: 'model_not_found', message } };
  }
  if (chat.length < exposed.length) notes.push(`excluded ${exposed.length - chat.length} non-chat model(s)`);

  const override = overrides.families?.[family] ?? [];
  // A workspace override vouches for a model the defaults call text-only.
  const eligible =
    family === 'vision' ? chat.filter((id) => matchesAny(override, id) || !matchesAny(TEXT_ONLY_MODELS, id)) : chat;
  if (eligible.length === 0) {
    const message = 'The request contains images, but no exposed model accepts image input.';
    return { ok: false, notes: [message], error: { status: 400, code: 'model_not_capable', message } };
  }
  if (eligible.length < chat.length) notes.push(`excluded ${chat.length - eligible.length} text-only model(s) for images`);

  const ordered: string[] = [];
  const seen = new Set<string>();
  let first: string | null = null;
  const take = (patterns: readonly string[], source: string) => {
    for (const p of patterns) {
      const hits = eligible.filter((id) => !seen.has(id) && matches(p, id)).sort();
      for (const id of hits) {
        seen.add(id);
        ordered.push(id);
        first ??= `${source} pattern '${p}' for family ${family} matched ${id}`;
      }
    }
  };
  take(override, 'workspace override');
  take(DEFAULT_FAMILY_MODELS[family], 'default');
  const preferred = ordered.length;
  for (const id of eligible) {
    if (!seen.has(id)) {
      seen.add(id);
      ordered.push(id);
    }
  }
  notes.push(first ?? `no ${family} model exposed; falling back to the first available chat model ${ordered[0]}`);
  if (family === 'vision' && preferred === 0) notes.push('no known vision-capable model; image support is unverified');
  return { ok: true, candidates: ordered, notes };
}

/** For the HTTP layer. */
export function routeError(r: RouteFailure): AppError {
  return new AppError(r.error.code, r.error.message, { field: 'model' });
}
