/** Credentials in share, webhook and preview paths: the log keeps 4 characters. */

// Anything else there is a token: unknown shapes are redacted, not leaked.
const WEBHOOK_ROUTE_NAMES = new Set(['workers', 'agents', 'invitation-email']);
const KEEP = 4;

function mask(segment: string): string {
  return `${segment.slice(0, KEEP)}…`;
}

/** Case, `//`, `\` and escapes cannot slip past; strip the query first. */
export function redactPath(path: string): string {
  const direct = redactDecoded(path.replaceAll('\\', '/'));
  if (direct !== undefined) return direct;
  const decoded = decodeFully(path);
  if (decoded === path) return path;
  return redactDecoded(decoded.replaceAll('\\', '/')) ?? path;
}

/** Nested too (`%252F`), a bounded number of times; bad escapes stay. */
function decodeFully(path: string): string {
  let cur = path;
  for (let i = 0; i < 4 && cur.includes('%'); i++) {
    const next = cur.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        // Not UTF-8: byte by byte, which is all the segment matching needs.
        return run.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
      }
    });
    if (next === cur) break;
    cur = next;
  }
  return cur;
}

/** undefined unless a credential path. */
function redactDecoded(path: string): string | undefined {
  const parts = path.split('/');
  const seg: number[] = [];
  parts.forEach((p, i) => {
    if (p !== '') seg.push(i);
  });
  const at = (k: number) => (seg[k] === undefined ? '' : (parts[seg[k]] ?? '').toLowerCase());
  let first: number;
  if (at(0) === 'p') first = 1; // preview links, /p/{token}/… (daemon/preview/)
  else if (at(0) !== 'api' || at(1) !== 'public') return undefined;
  else if (at(2) === 'share') first = 3;
  else if (at(2) === 'webhooks') first = WEBHOOK_ROUTE_NAMES.has(at(3)) ? 4 : 3;
  else return undefined;

  // Everything from the token on: a suffix is never worth the risk.
  for (let k = first; k < seg.length; k++) {
    const i = seg[k]!;
    parts[i] = mask(parts[i]!);
  }
  return parts.join('/');
}
