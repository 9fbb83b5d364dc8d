// Login latency at the production scrypt cost, against one bare verification. Unknown addresses
// must cost the same as known ones, or timing would reveal which accounts exist.
import { join } from 'node:path';
import { hashPassword, OWASP_SCRYPT, verifyPassword } from '../../core/auth/password.ts';
import { loadConfig, resolveSecrets } from '../../core/kernel/config/index.ts';
import { createCore } from '../../core/index.ts';
import { createLogger } from '../../core/kernel/log.ts';
import { migrate, openDb } from '../../core/store/index.ts';
import { createApp } from '../../daemon/app.ts';
import { createServices } from '../../core/services.ts';
import { median, tempDir } from './lib.mjs';

export const name = 'login';
export const description = 'login latency at the production scrypt cost (N=2^17)';

const RUNS = Number(process.env.BENCH_LOGIN_RUNS ?? 5);
const PASSWORD = 'correct horse battery staple';

const post = (app, path, body) =>
  app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function timed(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export async function run() {
  const home = tempDir('svc-bench-login-');
  const { config } = loadConfig({ HOME: home.dir, SERVICE_DB_PATH: join(home.dir, 'svc.db'), SERVICE_LOG_LEVEL: 'silent' });
  const db = await openDb(config);
  await migrate(db);
  // No scrypt override: the core uses the production (OWASP) cost.
  const core = createCore({ config, secrets: resolveSecrets(config).secrets, db, log: createLogger('silent'), defaultMetrics: false });
  try {
    if (core.auth.scrypt.N !== OWASP_SCRYPT.N) throw new Error('login bench: not at the production scrypt cost');
    const app = createApp(core, createServices(core));
    const reg = await post(app, '/api/auth/register', { email: 'bench@example.com', password: PASSWORD });
    if (reg.status !== 201) throw new Error(`login bench: register answered ${reg.status}`);

    // The first unknown-address login also builds the cached dummy hash.
    await post(app, '/api/auth/login', { email: 'warmup@example.com', password: PASSWORD });
    const stored = await hashPassword(PASSWORD, OWASP_SCRYPT);
    const known = [];
    const unknown = [];
    const bare = [];
    // Interleaved, so outside load hits all three; RUNS stays below the throttle (30 per address).
    for (let i = 0; i < RUNS; i++) {
      known.push(await timed(async () => {
        const res = await post(app, '/api/auth/login', { email: 'bench@example.com', password: PASSWORD });
        if (res.status !== 200) throw new Error(`login bench: login answered ${res.status}`);
      }));
      unknown.push(await timed(async () => {
        const res = await post(app, '/api/auth/login', { email: `nobody${i}@example.com`, password: PASSWORD });
        if (res.status !== 401) throw new Error(`login bench: unknown login answered ${res.status}`);
      }));
      bare.push(await timed(() => verifyPassword(PASSWORD, stored)));
    }
    const baseline = median(bare);
    const knownMs = median(known);
    const unknownMs = median(unknown);
    return [
      { metric: `login, right password, median of ${RUNS} (ms)`, value: knownMs, baseline, note: 'baseline: one scrypt verify' },
      {
        metric: `login, unknown address, median of ${RUNS} (ms)`,
        value: unknownMs,
        baseline: knownMs,
        target: 'within 25% of a known address',
        ok: Math.abs(unknownMs / knownMs - 1) <= 0.25,
        note: 'baseline: right password',
      },
    ];
  } finally {
    await core.close();
    home.remove();
  }
}
