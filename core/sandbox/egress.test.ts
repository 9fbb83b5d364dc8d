// The egress proxy alone, spoken to over its Unix socket as a sandboxed client would (through the
// runner's loopback forwarder): the allowlist, the address guard after DNS, and that the
// connection goes to the vetted address whatever the name resolves to later.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { startTestServer, type TestServer } from '../../test/helpers/http-target.ts';
import { openEgress, type EgressOptions, type EgressSession } from './egress.ts';

function get(socketPath: string, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ socketPath, path: url, headers: { host: new URL(url).host } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    }).on('error', reject).end();
  });
}

/** CONNECT host:port, then a plain HTTP request through the tunnel. */
function tunnel(socketPath: string, authority: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(socketPath);
    let buf = '';
    let open = false;
    s.on('data', (d) => {
      buf += d;
      if (!open && buf.includes('\r\n\r\n')) {
        if (!buf.startsWith('HTTP/1.1 200')) return resolve(buf);
        open = true;
        buf = '';
        s.write(`GET ${path} HTTP/1.1\r\nhost: ${authority}\r\nconnection: close\r\n\r\n`);
      }
    });
    s.on('end', () => resolve(buf));
    s.on('error', reject);
    s.write(`CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n\r\n`);
  });
}

describe('egress proxy', () => {
  let target: TestServer;
  let proxy: EgressSession;
  const dns = new Map<string, string>();
  beforeAll(async () => {
    target = await startTestServer();
    const opts: EgressOptions = {
      allowedHosts: ['api.example.com', '*.internal.example', 'rebind.example.com'],
      allowPrivate: false,
      resolve: async (h) => (dns.has(h) ? [{ address: dns.get(h)!, family: 4 }] : []),
      // The test server is on loopback: call 127.0.0.1 "public" here, 10.x stays private.
      classify: (ip) => (ip === '127.0.0.1' ? 'public' : 'private'),
    };
    proxy = await openEgress(opts);
  });
  afterAll(async () => {
    await proxy.close();
    await target.close();
  });

  it('forwards plain HTTP and CONNECT to a listed host, at the address it vetted', async () => {
    dns.set('api.example.com', '127.0.0.1');
    const plain = await get(proxy.socketPath, `http://api.example.com:${target.port}/text?body=plain`);
    assert.deepEqual(plain, { status: 200, body: 'plain' });
    const tunnelled = await tunnel(proxy.socketPath, `api.example.com:${target.port}`, '/text?body=tunnel');
    assert.match(tunnelled, /^HTTP\/1.1 200 OK\r\n[\s\S]*\r\ntunnel\r\n/);
    assert.equal(proxy.refusals(), 0);
  });

  it('refuses unlisted hosts and listed hosts that resolve to private addresses, counting each', async () => {
    dns.set('evil.example.com', '127.0.0.1');
    dns.set('rebind.example.com', '10.0.0.7');
    const before = target.requests.length;
    const unlisted = await get(proxy.socketPath, `http://evil.example.com:${target.port}/text`);
    assert.equal(unlisted.status, 403);
    assert.match(unlisted.body, /blocked: host evil\.example\.com is not in the allowed hosts/);
    const privateAddr = await tunnel(proxy.socketPath, 'rebind.example.com:443', '/');
    assert.match(privateAddr, /^HTTP\/1.1 403 Forbidden[\s\S]*rebind\.example\.com resolves to 10\.0\.0\.7, which is not a public address/);
    const ipLiteral = await tunnel(proxy.socketPath, `127.0.0.1:${target.port}`, '/');
    assert.match(ipLiteral, /^HTTP\/1.1 403[\s\S]*not in the allowed hosts/);
    const https = await get(proxy.socketPath, 'https://api.example.com/');
    assert.equal(https.status, 400);
    assert.equal(target.requests.length, before, 'nothing refused reached the server');
    assert.equal(proxy.refusals(), 4);
  });
});
