// Start-up of dist/svc against a minimal `node -e` server on the same Node.
import { statSync } from 'node:fs';
import { BARE_SERVER, distBinary, median, rssMB, startServer, tempDir } from './lib.mjs';

export const name = 'startup';
export const description = 'cold start, binary size, idle RSS';

const RUNS = Number(process.env.BENCH_START_RUNS ?? 10);
const IDLE_MS = 1000;

export async function run() {
  const home = tempDir('svc-bench-home-');
  const svcEnv = { HOME: home.dir, PATH: '/usr/bin:/bin' };
  try {
    // First start with an empty HOME: unpacks the program cache, creates the database, migrates.
    const first = await startServer(distBinary, ['serve'], svcEnv);
    await first.stop();

    const svcTimes = [];
    const bareTimes = [];
    // Interleaved, so outside load hits both sides alike.
    for (let i = 0; i < RUNS; i++) {
      const s = await startServer(distBinary, ['serve'], svcEnv);
      svcTimes.push(s.ms);
      await s.stop();
      const b = await startServer(process.execPath, ['-e', BARE_SERVER], { PATH: '/usr/bin:/bin' });
      bareTimes.push(b.ms);
      await b.stop();
    }

    const svcRss = await idleRss(distBinary, ['serve'], svcEnv, '/api/health/ready');
    const bareRss = await idleRss(process.execPath, ['-e', BARE_SERVER], { PATH: '/usr/bin:/bin' }, '/');
    const sizeMB = statSync(distBinary).size / 1e6;
    const coldMs = median(svcTimes);
    const bareMs = median(bareTimes);
    return [
      { metric: `cold start, median of ${RUNS} (ms)`, value: coldMs, baseline: bareMs, target: '≤ 250', ok: coldMs <= 250 },
      { metric: 'first start, empty HOME (ms)', value: first.ms, baseline: bareMs },
      { metric: 'binary size (MB)', value: sizeMB, baseline: statSync(process.execPath).size / 1e6, target: '≤ 120', ok: sizeMB <= 120 },
      { metric: 'idle RSS after start (MB)', value: svcRss, baseline: bareRss, target: '≤ 70', ok: svcRss <= 70 },
    ];
  } finally {
    home.remove();
  }
}

async function idleRss(cmd, args, env, readyPath) {
  const s = await startServer(cmd, args, env, readyPath);
  try {
    await new Promise((r) => setTimeout(r, IDLE_MS));
    return rssMB(s.child.pid);
  } finally {
    await s.stop();
  }
}
