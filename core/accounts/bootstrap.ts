import type { Queryable } from '../store/types.ts';
import { hasUsers } from './repo.ts';

/** No account yet: the next sign-up becomes the bootstrap owner. */
export async function isEmptyStore(q: Queryable): Promise<boolean> {
  return !(await hasUsers(q));
}
