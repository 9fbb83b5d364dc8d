import { isIP } from 'node:net';
import type { Config } from '../kernel/config/index.ts';
import { badRequest } from '../kernel/errors.ts';
import { classifyAddress } from '../net/net-address.ts';
import { normalizeHost } from '../net/http-guard.ts';

/**
 * Checks of a Worker's fields that need more than a schema.
 *
 * notifyUrl: https only. Plain http is accepted when SERVICE_TOOL_HTTP_ALLOW_PRIVATE is on (the
 * operator already lets outbound calls reach the local network, where http is normal) or outside
 * production (a home lab, tests). A literal non-public IP is refused here when private addresses
 * are not allowed; a hostname is checked when the notification is sent (it may resolve elsewhere
 * by then — the sender vets the addresses it actually connects to).
 */
export function checkNotifyUrl(raw: string, config: Pick<Config, 'NODE_ENV' | 'SERVICE_TOOL_HTTP_ALLOW_PRIVATE'>): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest('invalid_request', 'notifyUrl: must be an absolute URL', 'notifyUrl');
  }
  const httpOk = config.SERVICE_TOOL_HTTP_ALLOW_PRIVATE || config.NODE_ENV !== 'production';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && httpOk)) {
    throw badRequest('invalid_request', `notifyUrl: must be an https:// URL${httpOk ? ' (or http://)' : ''}`, 'notifyUrl');
  }
  if (url.username || url.password) throw badRequest('invalid_request', 'notifyUrl: credentials in the URL are not allowed', 'notifyUrl');
  const host = normalizeHost(url.hostname);
  if (isIP(host) && !config.SERVICE_TOOL_HTTP_ALLOW_PRIVATE && classifyAddress(host) !== 'public') {
    throw badRequest('invalid_request', `notifyUrl: ${host} is not a public address (set SERVICE_TOOL_HTTP_ALLOW_PRIVATE=true to allow local receivers)`, 'notifyUrl');
  }
  return url.href;
}
