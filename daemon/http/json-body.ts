import type { Context } from 'hono';
import type { z } from 'zod';
import { AppError, badRequest, isAppError } from '../../core/kernel/errors.ts';
import { checkJsonValue } from '../../core/kernel/input-guard.ts';

/** application/json, or a structured-syntax type such as application/merge-patch+json. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9!#$&^_.-]+\+json$/.test(type);
}

/** `issue.path` → `messages.0.content`, the form the error body's `field` uses. */
export function fieldPath(path: readonly PropertyKey[]): string | undefined {
  return path.length === 0 ? undefined : path.map((p) => String(p)).join('.');
}

/**
 * Every bad input is a 4xx (docs/limits.md). The 415 stops cross-site form posts:
 * text/plain needs no preflight, and c.req.json() would take it.
 */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const value = await readJsonValue(c);
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = fieldPath(issue.path);
    throw badRequest('invalid_request', field ? `${field}: ${issue.message}` : issue.message, field);
  }
  return parsed.data;
}

/** No schema: hot-path routes (gateway) validate by hand. */
export async function readJsonValue(c: Context): Promise<unknown> {
  requireJsonContentType(c.req.header('content-type'));
  let text: string;
  try {
    text = await c.req.text();
  } catch (err) {
    throw unreadableBody(err);
  }
  return parseJsonText(text);
}

/** Checked before the body is read. */
export function requireJsonContentType(header: string | undefined): void {
  if (!isJsonContentType(header)) {
    throw new AppError('unsupported_media_type', 'Content-Type must be application/json.');
  }
}

/** The body limit's 413 passes through; anything else is a 400. */
export function unreadableBody(err: unknown): AppError {
  const appErr = isAppError(err) ? err : isAppError((err as Error)?.cause) ? ((err as Error).cause as AppError) : undefined;
  return appErr ?? new AppError('invalid_body', 'The request body could not be read.', { cause: err });
}

/** Empty or malformed → invalid_json; depth and NUL rules in core/kernel/input-guard.ts. */
export function parseJsonText(text: string): unknown {
  if (text.trim() === '') throw badRequest('invalid_json', 'Request body is empty; expected a JSON document.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parser's message quotes the body: never echoed or logged.
    throw badRequest('invalid_json', 'Request body is not valid JSON.');
  }
  checkJsonValue(value, text);
  return value;
}
