import { AppError } from './errors.ts';

/**
 * Input rules every surface applies before anything reads a value (issue 12):
 * - No NUL (U+0000) in any text: PostgreSQL cannot store it in a text column (it failed the
 *   statement, a 500), and SQLite would keep what PostgreSQL refuses, so both stores refuse it the
 *   same way, with a 400 naming where it was.
 * - JSON nested at most MAX_JSON_DEPTH levels. JSON.parse takes any depth, but JSON.stringify
 *   and every recursive reader after it overflow the stack a few thousand levels down (a 500).
 *   100 leaves room for deep JSON Schemas in tools and response formats and stays far below that.
 */
export const MAX_JSON_DEPTH = 100;

export const nulRefused = (where: string, field?: string) =>
  new AppError('nul_not_allowed', `${where} contains a NUL character (U+0000), which is not accepted in any text.`, field === undefined ? {} : { field });

export const tooDeep = (what: string) =>
  new AppError('json_too_deep', `${what} is nested more than ${MAX_JSON_DEPTH} levels deep.`);

/**
 * Checks a value JSON.parse returned (`text` is what it parsed): throws json_too_deep past the
 * depth limit, nul_not_allowed (naming the field) for a NUL in any key or string. Cheap on the hot
 * path: one walk over the containers, and the strings are only searched when the text holds the
 * escape `\u0000` at all (a raw NUL is not valid JSON).
 */
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

/** The key path of the first NUL (in a key or a string), or undefined. Depth is already bounded. */
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
