import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemResolver, vetUrl, type Resolver } from '../net/http-guard.ts';
import { classifyAddress, type AddressClass } from '../net/net-address.ts';

/** The allowlist proxy, per execution; connects only to addresses http_request's guard checked. */

export interface EgressOptions {
  allowedHosts: readonly string[];
  allowPrivate: boolean;
  resolve?: Resolver;
  classify?: (ip: string) => AddressClass;
}

export interface EgressSession {
  socketPath: string;
  /** Requests refused so far. */
  refusals(): number;
  close(): Promise<void>;
}

const CONNECT_TIMEOUT_MS = 10_000;

export async function openEgress(o: EgressOptions): Promise<EgressSession> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-egress-'));
  const socketPath = join(dir, 'egress.sock');
  const sockets = new Set<Socket>();
  const ac = new AbortController();
  let refused = 0;
  const vet = (url: URL) =>
    vetUrl(url, {
      allowPrivate: o.allowPrivate, allowLists: [o.allowedHosts], resolve: o.resolve ?? systemResolver,
      classify: o.classify ?? classifyAddress, signal: ac.signal,
    });
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };

  const server = createServer((req, res) => void forwardHttp(req, res));
  server.on('connection', track);

  async function forwardHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return refuse(res, 400, 'a proxy request needs an absolute http:// URL');
    }
    if (url.protocol !== 'http:') return refuse(res, 400, 'use CONNECT for https');
    const v = await vet(url).catch((e: Error) => ({ ok: false as const, error: e.message }));
    if (!v.ok) return refuse(res, 403, v.error);
    const headers = { ...req.headers };
    for (const h of ['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive']) delete headers[h];
    const up = httpRequest({
      host: v.addresses[0]!.address, port: url.port || 80, method: req.method, path: url.pathname + url.search, headers,
      timeout: CONNECT_TIMEOUT_MS,
    });
    up.on('socket', track);
    up.on('response', (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('timeout', () => up.destroy(new Error('timeout')));
    up.on('error', (e) => (res.headersSent ? res.destroy() : refuse(res, 502, `upstream: ${e.message}`, false)));
    req.pipe(up);
  }

  function refuse(res: ServerResponse, status: number, why: string, count = true): void {
    if (count) refused++;
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
    res.end(`svc egress proxy: ${why}\n`);
  }

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    track(client);
    const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(req.url ?? '');
    const deny = (status: string, why: string, count = true) => {
      if (count) refused++;
      client.end(`HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n\r\nsvc egress proxy: ${why}\n`);
    };
    if (!m) return deny('400 Bad Request', 'CONNECT needs host:port');
    const [, host, port] = m as unknown as [string, string, string];
    void vet(new URL(`https://${host.includes(':') ? `[${host}]` : host}:${port}/`))
      .catch((e: Error) => ({ ok: false as const, error: e.message }))
      .then((v) => {
        if (!v.ok) return deny('403 Forbidden', v.error);
        const up = connect({ host: v.addresses[0]!.address, port: Number(port), timeout: CONNECT_TIMEOUT_MS });
        track(up);
        up.once('timeout', () => up.destroy());
        up.once('error', (e) => deny('502 Bad Gateway', `cannot reach ${host}:${port}: ${e.message}`, false));
        up.once('connect', () => {
          up.setTimeout(0);
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length) up.write(head);
          up.pipe(client);
          client.pipe(up);
        });
      });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    socketPath,
    refusals: () => refused,
    async close() {
      ac.abort();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
