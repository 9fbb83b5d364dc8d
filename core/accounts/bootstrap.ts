import type { Queryable } from '../store/types.ts';

/** No account yet: the next sign-up becomes the bootstrap owner. */
export async function isEmptyStore(q: Queryable): Promise<boolean> {
  return !(await q.one('SELECT 1 AS x FROM users LIMIT 1'));
}
