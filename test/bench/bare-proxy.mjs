// The floor for any Node proxy here, to split "added latency" into hops and svc's own work.
// Usage: node bare-proxy.mjs <upstream origin> (listens on $PORT, prints nothing).
import { createServer } from 'node:http';
import { Pool } from 'undici';

const pool = new Pool(process.argv[2], { connections: 64, pipelining: 1 });
createServer((req, res) => {
  if (req.url === '/health') return void res.end('ok');
  const parts = [];
  req.on('data', (c) => parts.push(c));
  req.on('end', async () => {
    try {
      const up = await pool.request({ method: req.method, path: req.url.replace(/^\/api\/v1/, '/v1'), headers: { 'content-type': 'application/json' }, body: Buffer.concat(parts) });
      res.writeHead(up.statusCode, { 'content-type': up.headers['content-type'] });
      for await (const chunk of up.body) res.write(chunk);
      res.end();
    } catch {
      res.destroy();
    }
  });
}).listen(Number(process.env.PORT), '127.0.0.1');
