import type { IncomingMessage } from 'node:http';
import type { Config } from '../../core/kernel/config/index.ts';
import { originHost } from '../../core/kernel/config/load.ts';

/**
 * Decides whether untrusted app code or the workbench answers.
 * Ports are ignored: the config refuses equal host names.
 */

/** Lower case, no port, no trailing dot ('' when empty). */
export function hostName(value: string): string {
  let v = value.trim().toLowerCase();
  if (v.startsWith('[')) {
    const end = v.indexOf(']');
    v = end < 0 ? v : v.slice(0, end + 1);
  } else {
    const colon = v.indexOf(':');
    if (colon >= 0) v = v.slice(0, colon);
  }
  return v.endsWith('.') ? v.slice(0, -1) : v;
}

/** With a trusted proxy, the last X-Forwarded-Host entry. */
export function requestHost(rawHeaders: readonly string[], trustProxy: boolean): string | undefined {
  let host: string | undefined;
  let forwarded: string | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 4 && host === undefined && name.toLowerCase() === 'host') host = rawHeaders[i + 1];
    else if (trustProxy && name.length === 16 && name.toLowerCase() === 'x-forwarded-host') forwarded = rawHeaders[i + 1];
  }
  if (forwarded !== undefined) {
    const last = forwarded.split(',').at(-1)!.trim();
    if (last !== '') return last;
  }
  return host;
}

/** `(req) => true` when the request is for the preview origin. */
export function previewHostMatcher(config: Pick<Config, 'SERVICE_PREVIEW_ORIGIN' | 'SERVICE_TRUST_PROXY'>): (req: IncomingMessage) => boolean {
  const preview = originHost(config.SERVICE_PREVIEW_ORIGIN);
  const trust = config.SERVICE_TRUST_PROXY;
  return (req) => {
    const host = requestHost(req.rawHeaders, trust);
    // Cheap first: the app origin's name is usually shorter.
    if (host === undefined || host.length < preview.length) return false;
    return hostName(host) === preview;
  };
}
