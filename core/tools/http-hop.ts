import type { Agent as AgentType } from 'undici';
import { pinnedLookup, type ResolvedAddress } from './http-guard.ts';

/** One HTTP exchange of the http_request tool (redirects are the caller's business). */
export interface HopRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** The vetted addresses; the socket connects to these and nothing else. */
  addresses: ResolvedAddress[];
  maxResponseBytes: number;
  signal: AbortSignal;
}

export interface HopResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The body went past maxResponseBytes; `body` holds the first maxResponseBytes bytes. */
  truncated: boolean;
}

/**
 * Sends one request through a dispatcher of its own whose connector can only reach the vetted
 * addresses (TLS still verifies the certificate against the URL's hostname, and Host names it).
 * Reads at most maxResponseBytes + 1 bytes and then drops the connection, so a huge or endless
 * body costs no more than the cap. Network failures are thrown as undici/Node errors.
 */
export async function sendHop(r: HopRequest): Promise<HopResponse> {
  // Loaded on first use: most processes never make a tool call.
  const loaded = await import('undici');
  // Bundled, the CommonJS package arrives as a default export; from source, as named ones.
  const { Agent, request } = loaded.Agent ? loaded : (loaded as unknown as { default: typeof loaded }).default;
  const dispatcher: AgentType = new Agent({
    connect: { lookup: pinnedLookup(r.addresses) },
    // The overall deadline is the caller's signal; undici's own timers must not undercut or outlast it.
    headersTimeout: 0,
    bodyTimeout: 0,
    connections: 1,
    pipelining: 1,
  });
  try {
    const res = await request(r.url, {
      dispatcher,
      method: r.method as 'GET',
      headers: r.headers,
      body: r.body,
      signal: r.signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      const room = r.maxResponseBytes - size;
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        size += Math.max(room, 0);
        truncated = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
    // After a break the stream is still open: destroy it rather than drain an unbounded body (the
    // abort error that follows is expected; nobody else listens).
    res.body.on('error', () => {});
    res.body.destroy();
    return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks, size), truncated };
  } finally {
    dispatcher.destroy().catch(() => {});
  }
}
