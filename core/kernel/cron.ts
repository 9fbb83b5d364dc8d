/**
 * Five-field cron in UTC, written here: the grammar is small and errors must be clear.
 * Grammar and the Vixie either-day rule: docs/scheduler.md.
 */

export class CronError extends Error {
  constructor(expr: string, detail: string) {
    super(`invalid cron schedule ${JSON.stringify(expr)}: ${detail}`);
    this.name = 'CronError';
  }
}

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] },
  { name: 'day-of-week', min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
];

const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** February counts 29 days: only never-firing schedules are refused. */
const MAX_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MINUTE = 60_000;

export interface Cron {
  readonly source: string;
  /** True when the UTC minute containing `ms` is a firing time. */
  matches(ms: number): boolean;
  /** Latest firing minute in `(afterMs, upToMs]`; scans minutes, so keep the window small. */
  latestIn(afterMs: number, upToMs: number): number | undefined;
  /** First firing minute after `afterMs` (within five years), for display. */
  next(afterMs: number): number | undefined;
}

export function parseCron(input: string): Cron {
  const source = input.trim();
  const expanded = source.startsWith('@') ? MACROS[source.toLowerCase()] : source;
  if (expanded === undefined) throw new CronError(input, `unknown macro ${source} (known: ${Object.keys(MACROS).join(', ')})`);
  const parts = expanded.split(/\s+/).filter((p) => p !== '');
  if (parts.length !== 5) {
    throw new CronError(input, `expected 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`);
  }
  const [minute, hour, dom, month, dowRaw] = parts.map((p, i) => parseField(input, p, FIELDS[i]!));
  const dow = new Set([...dowRaw!].map((d) => (d === 7 ? 0 : d)));
  const domStar = parts[2]!.startsWith('*');
  const dowStar = parts[4]!.startsWith('*');
  if (!domStar && dowStar && ![...month!].some((m) => [...dom!].some((d) => d <= MAX_DAYS[m - 1]!))) {
    throw new CronError(input, 'the day-of-month never occurs in the given month(s), so it would never run');
  }

  const dayMatches = (d: Date): boolean => {
    const inDom = dom!.has(d.getUTCDate());
    const inDow = dow.has(d.getUTCDay());
    if (domStar || dowStar) return inDom && inDow;
    return inDom || inDow;
  };
  const matches = (ms: number): boolean => {
    const d = new Date(ms);
    return minute!.has(d.getUTCMinutes()) && hour!.has(d.getUTCHours()) && month!.has(d.getUTCMonth() + 1) && dayMatches(d);
  };
  return {
    source,
    matches,
    latestIn(afterMs, upToMs) {
      for (let t = Math.floor(upToMs / MINUTE) * MINUTE; t > afterMs; t -= MINUTE) if (matches(t)) return t;
      return undefined;
    },
    next(afterMs) {
      // Skip whole non-matching months, days, hours: a few thousand steps at most.
      const limit = afterMs + 5 * 366 * 24 * 60 * MINUTE;
      let t = Math.floor(afterMs / MINUTE) * MINUTE + MINUTE;
      while (t <= limit) {
        const d = new Date(t);
        if (!month!.has(d.getUTCMonth() + 1)) t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
        else if (!dayMatches(d)) t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
        else if (!hour!.has(d.getUTCHours())) t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() + 1);
        else if (!minute!.has(d.getUTCMinutes())) t += MINUTE;
        else return t;
      }
      return undefined;
    },
  };
}

/** The error message for an invalid schedule, or undefined (for API validation). */
export function cronProblem(expr: string): string | undefined {
  try {
    parseCron(expr);
    return undefined;
  } catch (err) {
    if (err instanceof CronError) return err.message;
    throw err;
  }
}

function parseField(expr: string, text: string, f: FieldSpec): Set<number> {
  const out = new Set<number>();
  const fail = (detail: string): never => {
    throw new CronError(expr, `${f.name} field ${JSON.stringify(text)}: ${detail}`);
  };
  for (const item of text.split(',')) {
    if (item === '') fail('empty list item');
    const [range, stepText, extra] = item.split('/');
    if (extra !== undefined) fail(`"${item}" has more than one "/"`);
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText)) fail(`step "${stepText}" is not a positive integer`);
      step = Number(stepText);
      if (step < 1 || step > f.max) fail(`step ${step} must be from 1 to ${f.max}`);
    }
    let lo: number;
    let hi: number;
    if (range === '*') {
      lo = f.min;
      hi = f.max;
    } else {
      const bounds = range!.split('-');
      if (bounds.length > 2) fail(`"${range}" is not a value or a range a-b`);
      lo = value(bounds[0]!, f, fail);
      hi = bounds.length === 2 ? value(bounds[1]!, f, fail) : stepText !== undefined ? f.max : lo;
      if (lo > hi) fail(`range ${lo}-${hi} runs backwards`);
    }
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

function value(text: string, f: FieldSpec, fail: (d: string) => never): number {
  const named = f.names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) return named + (f.name === 'month' ? 1 : 0);
  if (!/^\d+$/.test(text)) fail(`"${text}" is not a number${f.names ? ' or a name' : ''}`);
  const n = Number(text);
  if (n < f.min || n > f.max) fail(`${n} is out of range ${f.min}-${f.max}`);
  return n;
}
