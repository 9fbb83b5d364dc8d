/** Injectable time, so expiry and execution limits are testable without waiting. */
export interface Clock {
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to (tests). */
export function manualClock(start = Date.parse('2026-01-01T00:00:00Z')): Clock & { advance(ms: number): void; set(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms) => { t += ms; }, set: (ms) => { t = ms; } };
}
