import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

/**
 * The client's address for throttling. The TCP peer by default: X-Forwarded-For is the client's to
 * write, so trusting it lets anyone escape a per-address limit. With SERVICE_TRUST_PROXY=true (the
 * service sits behind a reverse proxy) the last X-Forwarded-For entry — the one the proxy added — is
 * used instead, so clients behind one proxy are not throttled as one. Under `app.request` (tests)
 * there is no socket.
 */
export function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const xff = c.req.header('x-forwarded-for');
    const last = xff?.split(',').at(-1)?.trim();
    if (last) return last;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
