import { badRequest } from '../kernel/errors.ts';
import { cronProblem } from '../kernel/cron.ts';

/**
 * A Worker's `schedule`: the scheduler's own cron grammar (5 fields, UTC, names and @macros), so
 * the API refuses exactly what the scheduler could never fire. Returns the trimmed expression.
 */
export function checkSchedule(expr: string): string {
  const s = expr.trim();
  const problem = cronProblem(s);
  if (problem) throw badRequest('invalid_request', `schedule: ${problem}`, 'schedule');
  return s;
}
