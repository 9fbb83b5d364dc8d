/** Not zod: codes differ per field, and the budget is < 0.25 ms. */
import type { CodeWithStatus } from '../../kernel/codes.ts';
import { AppError } from '../../kernel/errors.ts';

/** Every refusal is a 400 naming the offending parameter (OpenAI `param`). */
export function refuse(code: CodeWithStatus<400>, param: string, message: string): AppError {
  return new AppError(code, message, { field: param, type: 'invalid_request_error' });
}

export const invalid = (param: string, message: string) => refuse('invalid_request', param, message);

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function obj(v: unknown, param: string): Obj {
  if (!isObj(v)) throw invalid(param, `${param} must be an object.`);
  return v;
}

export function str(v: unknown, param: string): string {
  if (typeof v !== 'string') throw invalid(param, `${param} must be a string.`);
  return v;
}

export function bool(v: unknown, param: string): boolean {
  if (typeof v !== 'boolean') throw invalid(param, `${param} must be a boolean.`);
  return v;
}

export function numberIn(v: unknown, param: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
    throw invalid(param, `${param} must be a number from ${min} to ${max}.`);
  }
  return v;
}

export function integer(v: unknown, param: string, min = Number.MIN_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
    throw invalid(param, min === Number.MIN_SAFE_INTEGER ? `${param} must be an integer.` : `${param} must be an integer of at least ${min}.`);
  }
  return v;
}

export function oneOf<T extends string>(v: unknown, param: string, allowed: readonly T[]): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw invalid(param, `${param} must be one of ${allowed.join(', ')}.`);
  }
  return v as T;
}

/** Code points: what "characters" means to a person. */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}
