/**
 * An upstream's own words, made fit to show a member and to log: upstreams echo what they were sent
 * (a key in "Incorrect API key provided: sk-…"), and a base URL pointed at the wrong service
 * answers with whatever that service holds. So: known secrets and credential-shaped tokens are cut
 * out, control characters go, and the text is capped. Used for every upstream error message.
 */

export const REDACTED = '[redacted]';
export const MAX_UPSTREAM_MESSAGE = 300;

// Credential shapes worth cutting even when we do not know the value: bearer tokens, the common
// provider key prefixes (OpenAI/Anthropic/OpenRouter `sk-`, Google `AIza`, Groq `gsk_`, xAI), our
// own tokens, and `key=…`-style pairs.
const PATTERNS: [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi, `$1 ${REDACTED}`],
  [/\b(?:sk|rk|pk)-[A-Za-z0-9_-]{8,}/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{16,}/g, REDACTED],
  [/\b(?:gsk|xai|ghp|gho|glpat)[_-][A-Za-z0-9_-]{12,}/g, REDACTED],
  [/\bsvc_(?:live|pat|admin)_[A-Za-z0-9_-]+/g, REDACTED],
  [/\b((?:api[_-]?key|access[_-]?token|x-api-key|token|secret|password)["']?\s*[:=]\s*["']?)[^\s"',;&]{6,}/gi, `$1${REDACTED}`],
];

/** Replaces every known secret (and its credential-shaped look-alikes) in `text`. */
export function redactSecrets(text: string, secrets: readonly (string | undefined | null)[] = []): string {
  let out = text;
  for (const s of secrets) {
    // Tiny values would blank out ordinary words; real keys are far longer.
    if (!s || s.length < 6) continue;
    out = out.split(s).join(REDACTED);
    if (s.length >= FRAGMENT + 4) out = redactFragments(out, s);
  }
  for (const [re, by] of PATTERNS) out = out.replace(re, by);
  return out;
}

/**
 * Upstreams often echo part of a key ("sk-abc1…wxyz"): any run of at least FRAGMENT characters
 * that also occurs in the key is cut. A random key shares no such run with ordinary text.
 */
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

/** One line, no control characters, secrets cut, at most MAX_UPSTREAM_MESSAGE characters. */
export function sanitizeUpstreamText(text: string, secrets: readonly (string | undefined | null)[] = []): string {
  // Bounded work on any body; redaction runs before the final cut, so the cut can never leave a
  // secret's unmatched prefix behind (a prefix cut at 4096 is far past the final 300).
  const flat = redactSecrets(text.slice(0, 4096).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' '), secrets).replace(/\s+/g, ' ').trim();
  return flat.length > MAX_UPSTREAM_MESSAGE ? `${flat.slice(0, MAX_UPSTREAM_MESSAGE - 1)}…` : flat;
}
