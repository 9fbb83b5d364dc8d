/** Upstreams echo keys and wrong base URLs answer anything, so their text is redacted and capped. */

export const REDACTED = '[redacted]';
export const MAX_UPSTREAM_MESSAGE = 300;

// Credential shapes cut even when the value is unknown.
const PATTERNS: [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi, `$1 ${REDACTED}`],
  [/\b(?:sk|rk|pk)-[A-Za-z0-9_-]{8,}/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{16,}/g, REDACTED],
  [/\b(?:gsk|xai|ghp|gho|glpat)[_-][A-Za-z0-9_-]{12,}/g, REDACTED],
  [/\bsvc_(?:live|pat|admin)_[A-Za-z0-9_-]+/g, REDACTED],
  [/\b((?:api[_-]?key|access[_-]?token|x-api-key|token|secret|password)["']?\s*[:=]\s*["']?)[^\s"',;&]{6,}/gi, `$1${REDACTED}`],
];

/** Cuts known secrets and credential-shaped tokens. */
export function redactSecrets(text: string, secrets: readonly (string | undefined | null)[] = []): string {
  let out = text;
  for (const s of secrets) {
    // Tiny values would blank out ordinary words.
    if (!s || s.length < 6) continue;
    out = out.split(s).join(REDACTED);
    if (s.length >= FRAGMENT + 4) out = redactFragments(out, s);
  }
  for (const [re, by] of PATTERNS) out = out.replace(re, by);
  return out;
}

/** Echoed key fragments this long are cut; ordinary text shares none with a random key. */
const FRAGMENT = 8;
function redactFragments(text: string, secret: string): string {
  const grams = new Set<string>();
  for (let i = 0; i + FRAGMENT <= secret.length; i++) grams.add(secret.slice(i, i + FRAGMENT));
  const hit = new Uint8Array(text.length);
  let any = false;
  for (let i = 0; i + FRAGMENT <= text.length; i++) {
    if (grams.has(text.slice(i, i + FRAGMENT))) {
      hit.fill(1, i, i + FRAGMENT);
      any = true;
    }
  }
  if (!any) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (!hit[i]) out += text[i];
    else if (i === 0 || !hit[i - 1]) out += REDACTED;
  }
  return out;
}

/** One line, no control characters, secrets cut, capped. */
export function sanitizeUpstreamText(text: string, secrets: readonly (string | undefined | null)[] = []): string {
  // Redact before the final cut, so no secret's prefix survives it.
  const flat = redactSecrets(text.slice(0, 4096).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' '), secrets).replace(/\s+/g, ' ').trim();
  return flat.length > MAX_UPSTREAM_MESSAGE ? `${flat.slice(0, MAX_UPSTREAM_MESSAGE - 1)}…` : flat;
}
