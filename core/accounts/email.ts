/**
 * One spelling per address: NFC, trimmed, lower-cased. Invitations match on this form, so
 * `Ana@Example.com` and `ana@example.com` are the same person.
 */
export function normalizeEmail(raw: string): string {
  return raw.normalize('NFC').trim().toLowerCase();
}

// Deliberately permissive (unicode local parts and IDN domains are real); a mail relay is the judge.
const SHAPE = /^[^\s@<>()[\]\\,;:"]{1,64}@[^\s@<>()[\]\\,;:"]{1,255}\.[^\s@<>()[\]\\,;:".]{2,63}$/u;

export function isEmail(normalized: string): boolean {
  return normalized.length <= 320 && SHAPE.test(normalized);
}
