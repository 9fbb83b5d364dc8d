/** `?` to `$n`, skipping literals, identifiers and comments; cached, as few statements recur. */
const MAX_CACHED = 1000;
const cache = new Map<string, string>();

export function toPgPlaceholders(sql: string): string {
  const hit = cache.get(sql);
  if (hit !== undefined) return hit;
  const out = rewrite(sql);
  if (cache.size >= MAX_CACHED) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(sql, out);
  return out;
}

function rewrite(sql: string): string {
  if (!sql.includes('?')) return sql;
  let out = '';
  let n = 0;
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === '?') {
      out += `$${++n}`;
      i++;
      continue;
    }
    const end = skipQuotedOrComment(sql, i);
    out += sql.slice(i, end);
    i = end;
  }
  return out;
}

/** Index past the quoted token or comment at `i`, else `i + 1`. */
function skipQuotedOrComment(sql: string, i: number): number {
  const ch = sql[i];
  if (ch === "'" || ch === '"') {
    // A doubled quote is an escaped one.
    let j = i + 1;
    while (j < sql.length) {
      if (sql[j] === ch) {
        if (sql[j + 1] === ch) j += 2;
        else return j + 1;
      } else j++;
    }
    return sql.length;
  }
  if (ch === '-' && sql[i + 1] === '-') {
    const nl = sql.indexOf('\n', i);
    return nl === -1 ? sql.length : nl + 1;
  }
  if (ch === '/' && sql[i + 1] === '*') {
    const close = sql.indexOf('*/', i + 2);
    return close === -1 ? sql.length : close + 2;
  }
  return i + 1;
}
