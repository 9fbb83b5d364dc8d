import { UniqueViolation } from './types.ts';

/**
 * Runs an insert that takes the next sequence number (`SELECT MAX(seq) + 1`) again when a
 * concurrent writer took the same number first. A few attempts: such races are rare and short.
 */
export async function retryOnUniqueViolation<T>(fn: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof UniqueViolation) || attempt >= attempts) throw err;
    }
  }
}
