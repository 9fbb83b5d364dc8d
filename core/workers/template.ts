import { checkJsonValue } from '../kernel/input-guard.ts';

/**
 * A Worker's input template, rendered with the trigger's request body:
 * - `{{body}}`        → the raw body text, unchanged;
 * - `{{json.a.b.0}}`  → a field of a JSON body (dot path; array indexes are numbers). A string is
 *                       inserted as is, any other value as JSON; a missing field, or a body that is
 *                       not JSON, gives the empty string.
 * Spaces inside the braces are allowed (`{{ body }}`). Anything else in braces is left as written,
 * so a template can still contain literal `{{…}}` text. Scheduled runs render with an empty body.
 */

const PLACEHOLDER = /\{\{\s*(body|json(?:\.[A-Za-z0-9_$-]+)+)\s*\}\}/g;

/** The body as JSON, or undefined when it is not JSON (any content type is accepted). JSON nested
 * past MAX_JSON_DEPTH is refused (400): a field of it could be too deep to write back as JSON. */
export function parseBody(text: string): unknown {
  const t = text.trim();
  if (t === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(t);
  } catch {
    return undefined;
  }
  checkJsonValue(value, '', 'The webhook body'); // a NUL is refused in the rendered input (trigger.ts)
  return value;
}

function pick(value: unknown, path: string[]): unknown {
  let cur = value;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    // Own properties only: `{{json.constructor}}` must not reach Object.prototype.
    if (!Object.prototype.hasOwnProperty.call(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

export function renderTemplate(template: string, bodyText: string): string {
  let json: unknown;
  let parsed = false;
  return template.replace(PLACEHOLDER, (_m, name: string) => {
    if (name === 'body') return bodyText;
    if (!parsed) {
      json = parseBody(bodyText);
      parsed = true;
    }
    const v = pick(json, name.split('.').slice(1));
    if (v === undefined || v === null) return '';
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}
