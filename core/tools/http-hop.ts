import type { Agent as AgentType } from 'undici';
import { pinnedLookup, type ResolvedAddress } from '../net/http-guard.ts';

/** One exchange of http_request; redirects are the caller's business. */
export interface HopRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** The socket connects to these and nothing else. */
  addresses: ResolvedAddress[];
  maxResponseBytes: number;
  signal: AbortSignal;
}

export interface HopResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** `body` holds the first maxResponseBytes bytes. */
  truncated: boolean;
}

/** TLS still checks the hostname; reading stops past the cap. */
export async function sendHop(r: HopRequest): Promise<HopResponse> {
  // Loaded on first use: most processes never make a tool call.
  const loaded = await import('undici');
  // Bundled it is a default export; from source, named ones.
  const { Agent, request } = loaded.Agent ? loaded : (loaded as unknown as { default: typeof loaded }).default;
  const dispatcher: AgentType = new Agent({
    connect: { lookup: pinnedLookup(r.addresses) },
    // The caller's signal is the deadline; undici's timers must not differ.
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
    // Destroy rather than drain an unbounded body; the abort error is expected.
    res.body.on('error', () => {});
    res.body.destroy();
    return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks, size), truncated };
  } finally {
    dispatcher.destroy().catch(() => {});
  }
}
