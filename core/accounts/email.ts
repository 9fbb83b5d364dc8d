/** One spelling per address: invitations match on this form. */
export function normalizeEmail(raw: string): string {
  return raw.normalize('NFC').trim().toLowerCase();
}

// Permissive: unicode local parts and IDN domains are real; the relay judges.
const SHAPE = /^[^\s@<>()[\]\\,;:"]{1,64}@[^\s@<>()[\]\\,;:"]{1,255}\.[^\s@<>()[\]\\,;:".]{2,63}$/u;

export function isEmail(normalized: string): boolean {
  return normalized.length <= 320 && SHAPE.test(normalized);
}
