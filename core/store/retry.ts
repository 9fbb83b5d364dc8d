import { UniqueViolation } from './types.ts';

/** Retries a `MAX(seq) + 1` insert that lost a race; such races are rare. */
export async function retryOnUniqueViolation<T>(fn: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof UniqueViolation) || attempt >= attempts) throw err;
    }
  }
}
