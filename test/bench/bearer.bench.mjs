// Bearer verification on a warm cache, and what requireBearer adds to a trivial route.
import { createCore } from '../../core/index.ts';
import { createLogger } from '../../core/kernel/log.ts';
import { issueCredential, verifyCredential } from '../../core/credentials/service.ts';
import { createApp } from '../../daemon/app.ts';
import { requireBearer } from '../../daemon/middleware/bearer.ts';
import { createServices, credentialDeps } from '../../core/services.ts';
import { testCore } from '../integration/http-fixture.ts';
import { cast } from '../integration/people.ts';

export const name = 'bearer';
export const description = 'warm-cache bearer verification; requireBearer overhead per request';

const VERIFY_CALLS = Number(process.env.BENCH_VERIFY_CALLS ?? 200_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);

export async function run() {
  const fx = await testCore();
  try {
    // The access line costs both routes alike but would dominate the noise.
    const f = fx.core;
    const core = createCore({ config: f.config, secrets: f.secrets, db: f.db, log: createLogger('error', () => {}), clock: fx.clock, defaultMetrics: false });
    const people = await cast(core);
    const deps = credentialDeps(core);
    const key = await issueCredential(deps, { kind: 'member', userId: people.member.userId, workspaceId: people.workspace, name: 'bench' });
    if (!(await verifyCredential(deps, key.token, 'member'))) throw new Error('bench: key does not verify');

    const verifyUs = await perCall(VERIFY_CALLS, async () => {
      if (!(await verifyCredential(deps, key.token, 'member'))) throw new Error('bench: verification failed');
    });

    const app = createApp(core, createServices(core), {
      routes(app, core, services) {
        app.get('/bench/open', (c) => c.json({ ok: true }));
        app.get('/bench/bearer', requireBearer(core, services, 'member'), (c) => c.json({ ok: true }));
      },
    });
    const init = { headers: { authorization: `Bearer ${key.token}` } };
    const request = (path) => async () => {
      const res = await app.request(path, init);
      if (res.status !== 200) throw new Error(`bench: ${path} answered ${res.status}`);
      await res.arrayBuffer();
    };
    // Alternate the two so drift on a shared machine hits both alike.
    let open = Infinity;
    let guarded = Infinity;
    for (let round = 0; round < 3; round++) {
      open = Math.min(open, await perCall(REQUESTS, request('/bench/open')));
      guarded = Math.min(guarded, await perCall(REQUESTS, request('/bench/bearer')));
    }
    return [
      { metric: `verifyCredential, warm cache (µs/call, ${VERIFY_CALLS} calls)`, value: verifyUs, target: '≤ 20 µs', ok: verifyUs <= 20 },
      {
        metric: `app.request with requireBearer vs without (µs/request, best of 3×${REQUESTS})`,
        value: guarded,
        baseline: open,
        note: `adds ${(guarded - open).toFixed(1)} µs`,
      },
    ];
  } finally {
    await fx.cleanup();
  }
}

/** After a 5% warm-up. */
async function perCall(n, fn) {
  for (let i = 0; i < Math.ceil(n / 20); i++) await fn();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return ((performance.now() - t0) * 1000) / n;
}
