/**
 * Paths under /api/public/share/ and /api/public/webhooks/ carry bearer credentials in the path
 * itself (share tokens, webhook refs), as do preview links (/p/{token}/…): anyone who can read the logs could replay them. The log keeps
 * the first 4 characters of each such segment, enough to correlate with the owner's token preview.
 */

// Fixed names that sit where a token might otherwise be; everything else there is treated as a
// token, so a mistyped or future URL shape is redacted rather than leaked.
const WEBHOOK_ROUTE_NAMES = new Set(['workers', 'agents', 'invitation-email']);
const KEEP = 4;

function mask(segment: string): string {
  return `${segment.slice(0, KEEP)}…`;
}

/**
 * Returns `path` with credential segments cut to their first 4 characters. Matching ignores case
 * and empty segments so `/API/public//share/x` cannot slip past; the query string must already be
 * gone (the access log never logs it).
 */
export function redactPath(path: string): string {
  const parts = path.split('/');
  const seg: number[] = [];
  parts.forEach((p, i) => {
    if (p !== '') seg.push(i);
  });
  const at = (k: number) => (seg[k] === undefined ? '' : (parts[seg[k]] ?? '').toLowerCase());
  let first: number;
  if (at(0) === 'p') first = 1; // preview links, /p/{token}/… (daemon/preview/)
  else if (at(0) !== 'api' || at(1) !== 'public') return path;
  else if (at(2) === 'share') first = 3;
  else if (at(2) === 'webhooks') first = WEBHOOK_ROUTE_NAMES.has(at(3)) ? 4 : 3;
  else return path;

  // Every segment from the token on is masked: a suffix after a token is never worth the risk.
  for (let k = first; k < seg.length; k++) {
    const i = seg[k]!;
    parts[i] = mask(parts[i]!);
  }
  return parts.join('/');
}
