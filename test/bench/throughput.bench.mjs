// /api/health throughput against a bare server answering the same JSON.
import { BARE_SERVER, distBinary, load, startServer, tempDir } from './lib.mjs';

export const name = 'throughput';
export const description = '/api/health requests per second vs bare node:http';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

export async function run() {
  const home = tempDir('svc-bench-home-');
  try {
    const bare = await measure(process.execPath, ['-e', BARE_SERVER], { PATH: '/usr/bin:/bin' }, '/api/health');
    const svc = await measure(distBinary, ['serve'], { HOME: home.dir, PATH: '/usr/bin:/bin' }, '/api/health');
    const ratio = svc.rps / bare.rps;
    return [
      {
        metric: `/api/health req/s (${CONNECTIONS} conns, ${SECONDS} s)`,
        value: svc.rps,
        baseline: bare.rps,
        target: 'ratio ≥ 0.6',
        ok: ratio >= 0.6 && svc.errors === 0,
        note: svc.errors ? `${svc.errors} errors` : undefined,
      },
    ];
  } finally {
    home.remove();
  }
}

async function measure(cmd, args, env, path) {
  const s = await startServer(cmd, args, env, path);
  try {
    return await load(`http://127.0.0.1:${s.port}`, path, { connections: CONNECTIONS, seconds: SECONDS });
  } finally {
    await s.stop();
  }
}
