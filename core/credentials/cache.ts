import type { Principal } from './types.ts';

/**
 * Spares every gateway request a database round trip. Revocation is immediate here;
 * other replicas catch up within `ttlMs`.
 */
export class CredentialCache {
  readonly #entries = new Map<string, { principal: Principal; until: number }>();
  readonly #ttlMs: number;
  readonly #max: number;

  constructor(ttlMs = 10_000, max = 50_000) {
    this.#ttlMs = ttlMs;
    this.#max = max;
  }

  get(hash: string, now: number): Principal | undefined {
    const e = this.#entries.get(hash);
    if (!e) return undefined;
    if (e.until <= now) {
      this.#entries.delete(hash);
      return undefined;
    }
    return e.principal;
  }

  set(hash: string, principal: Principal, now: number): void {
    if (this.#entries.size >= this.#max) {
      // Oldest insertion first: cheap and good enough.
      const first = this.#entries.keys().next();
      if (!first.done) this.#entries.delete(first.value);
    }
    // Capped at the credential's expiry, so a hit needs no expiry check.
    const expires = principal.expiresAt === null ? Infinity : Date.parse(principal.expiresAt);
    this.#entries.set(hash, { principal, until: Math.min(now + this.#ttlMs, expires) });
  }

  dropCredential(credentialId: string): void {
    for (const [hash, e] of this.#entries) if (e.principal.credentialId === credentialId) this.#entries.delete(hash);
  }

  dropUser(userId: string): void {
    for (const [hash, e] of this.#entries) if (e.principal.userId === userId) this.#entries.delete(hash);
  }
}
