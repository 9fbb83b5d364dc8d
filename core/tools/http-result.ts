import { STATUS_CODES } from 'node:http';
import type { HopResponse } from './http-hop.ts';

/** The compact text the model reads as the tool result. */

/** The rest (cookies, caching, tracing) is noise or secret. */
const SHOWN_HEADERS = ['content-type', 'content-length', 'location', 'retry-after'];

const TEXT_TYPES = /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|ecmascript|x-www-form-urlencoded|yaml|x-yaml|toml|graphql|x-ndjson|problem\+json)\b|image\/svg\+xml)/i;

function charsetOf(contentType: string): string | undefined {
  return /;\s*charset="?([\w.:-]+)"?/i.exec(contentType)?.[1]?.toLowerCase();
}

/** Undefined for binary content. */
export function decodeText(body: Buffer, contentType: string): string | undefined {
  const declared = contentType.split(';')[0]!.trim();
  const charset = charsetOf(contentType);
  if (declared === '' || declared === 'application/octet-stream') {
    // Undeclared: valid UTF-8 without NULs; the cap may split the last character.
    if (body.includes(0)) return undefined;
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(body, { stream: true });
    } catch {
      return undefined;
    }
  }
  if (!TEXT_TYPES.test(declared) && !charset) return undefined;
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body); // unknown charset label
  }
}

export interface ResultInfo {
  response: HopResponse;
  method: string;
  finalUrl: string;
  /** URLs followed, in order, when the response came after redirects. */
  redirects: string[];
  maxResponseBytes: number;
  notes: string[];
}

export function formatResult(i: ResultInfo): string {
  const { status, headers, body, truncated } = i.response;
  const lines = [`HTTP ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd()];
  if (i.redirects.length > 0) lines.push(`final url: ${i.finalUrl} (after ${i.redirects.length} redirect${i.redirects.length > 1 ? 's' : ''})`);
  for (const name of SHOWN_HEADERS) {
    const v = headers[name];
    if (v !== undefined) lines.push(`${name}: ${Array.isArray(v) ? v.join(', ') : v}`);
  }
  for (const n of i.notes) lines.push(`note: ${n}`);
  lines.push('');
  const contentType = String(headers['content-type'] ?? '');
  if (i.method === 'HEAD') {
    lines.push('(no body: HEAD request)');
  } else if (body.length === 0 && !truncated) {
    lines.push('(empty body)');
  } else {
    const text = decodeText(body, contentType);
    const size = truncated ? `more than ${i.maxResponseBytes} bytes` : `${body.length} bytes`;
    if (text === undefined) {
      lines.push(`(binary body of ${size}${contentType ? `, ${contentType}` : ''}; not shown)`);
    } else {
      lines.push(text);
      if (truncated) lines.push(`\n[truncated: the response is ${size}; only the first ${i.maxResponseBytes} bytes are shown]`);
    }
  }
  return lines.join('\n');
}

/** An echoing server must not hand credentials to the model. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  const sorted = [...new Set(secrets)].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  for (const s of sorted) out = out.split(s).join('[redacted]');
  return out;
}
