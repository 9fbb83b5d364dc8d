import { AppError } from './errors.ts';

/** No NUL (PostgreSQL cannot store it) and bounded nesting (recursive readers overflow);
 * the rules and their reasons are in docs/limits.md. */
export const MAX_JSON_DEPTH = 100;

export const nulRefused = (where: string, field?: string) =>
  new AppError('nul_not_allowed', `${where} contains a NUL character (U+0000), which is not accepted in any text.`, field === undefined ? {} : { field });

export const tooDeep = (what: string) =>
  new AppError('json_too_deep', `${what} is nested more than ${MAX_JSON_DEPTH} levels deep.`);

/** Throws json_too_deep or nul_not_allowed; strings are searched only if `text` has `\u0000`. */
export function checkJsonValue(value: unknown, text: string, what = 'The request body'): void {
  if (typeof value === 'object' && value !== null && !withinDepth(value, 1)) throw tooDeep(what);
  if (text.includes('\\u0000')) {
    const at = nulPath(value, []);
    if (at !== undefined) throw nulRefused(at.length ? at.join('.') : what, at.length ? at.join('.') : undefined);
  }
}

function withinDepth(v: object, depth: number): boolean {
  if (depth > MAX_JSON_DEPTH) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === 'object' && x !== null && !withinDepth(x, depth + 1)) return false;
    }
    return true;
  }
  for (const k in v) {
    const x: unknown = (v as Record<string, unknown>)[k];
    if (typeof x === 'object' && x !== null && !withinDepth(x, depth + 1)) return false;
  }
  return true;
}

/** Key path of the first NUL; depth is already bounded. */
function nulPath(v: unknown, at: string[]): string[] | undefined {
  if (typeof v === 'string') return v.includes('\0') ? at : undefined;
  if (typeof v !== 'object' || v === null) return undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = nulPath(v[i], [...at, String(i)]);
      if (p) return p;
    }
    return undefined;
  }
  for (const k in v) {
    if (k.includes('\0')) return [...at, JSON.stringify(k)];
    const p = nulPath((v as Record<string, unknown>)[k], [...at, k]);
    if (p) return p;
  }
  return undefined;
}
