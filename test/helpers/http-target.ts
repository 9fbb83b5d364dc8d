import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Records every connection, so a test can prove a refused call never arrived. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface TestServer {
  host: string;
  port: number;
  /** Origin as a URL would spell it (IPv6 in brackets). */
  origin: string;
  connections: number;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export async function startTestServer(host = '127.0.0.1'): Promise<TestServer> {
  const state = { connections: 0, requests: [] as SeenRequest[] };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      state.requests.push(seen);
      route(seen, res);
    });
  });
  server.on('connection', () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    host,
    port,
    origin,
    get connections() {
      return state.connections;
    },
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Res = Parameters<Parameters<typeof createServer>[1] & object>[1];

function route(req: SeenRequest, res: Res): void {
  const u = new URL(req.url, 'http://x');
  const q = (k: string) => u.searchParams.get(k);
  switch (u.pathname) {
    case '/echo':
      res.writeHead(200, { 'content-type': 'application/json', 'x-noise': 'hidden', 'set-cookie': 'sid=server-cookie' });
      res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: req.body }));
      return;
    case '/text':
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(q('body') ?? 'hello');
      return;
    case '/status':
      res.writeHead(Number(q('code') ?? 500), { 'content-type': 'text/plain' });
      res.end('status body');
      return;
    case '/redirect':
      res.writeHead(Number(q('status') ?? 302), q('to') === null ? {} : { location: q('to')! });
      res.end();
      return;
    case '/chain': {
      const n = Number(q('n') ?? 0);
      if (n <= 0) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('end of chain');
      } else {
        res.writeHead(302, { location: `/chain?n=${n - 1}` });
        res.end();
      }
      return;
    }
    case '/big': {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('a'.repeat(Number(q('n') ?? 0)));
      return;
    }
    case '/endless': {
      // Bounded, so a broken client cannot run the test forever.
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'b'.repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (!res.destroyed && sent < 256 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
      return;
    }
    case '/binary':
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0xff, 0xfe]));
      return;
    case '/slow':
      // Answers after 5 s unless the client gives up first.
      setTimeout(() => {
        if (!res.destroyed) res.end('late');
      }, 5000).unref();
      return;
    default:
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
  }
}
