// The gateway figures: the real binary set up through the real API, against the fake directly.
// Pinning keeps core crossings equal on both sides (docs/performance.md, "Gateway topology").
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { distBinary, hasCommand, load, repoRoot, rssMB, startServer, tempDir, signUpOwner, startFakeUpstream } from './lib.mjs';

export const name = 'gateway';
export const description = 'chat via svc serve vs the fake upstream directly: added latency, TTFT, req/s on one core, RSS';

const LATENCY_REQUESTS = Number(process.env.BENCH_LATENCY_REQUESTS ?? 5000);
// Per path; with fewer, the p99 measured TurboFan tiering up (docs/performance.md).
export const LATENCY_WARMUP = Number(process.env.BENCH_LATENCY_WARMUP ?? 15_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_GATEWAY_CONNECTIONS ?? 32);
const GATEWAY_CORE = '0';
const CLIENT_CORE = '1';

export async function run() {
  const pin = availableParallelism() >= 2 && hasCommand('taskset', ['-V']);
  const home = tempDir('svc-bench-gateway-');
  const restoreAffinity = pin ? pinSelf(CLIENT_CORE) : () => {};
  let fake;
  let paced;
  let svc;
  let bare;
  try {
    fake = await startFakeUpstream(pin ? CLIENT_CORE : undefined);
    // Events 1 ms apart: one per read, as models send them.
    paced = await startFakeUpstream(pin ? CLIENT_CORE : undefined, { FAKE_CHUNK_DELAY_MS: '1' });
    // BENCH_GATEWAY_SOURCE=1 runs cli/main.ts instead of dist/svc (readable names in a profile).
    // BENCH_GATEWAY_SVC=<path> measures another build of the binary (A/B against an older commit).
    const serve = process.env.BENCH_GATEWAY_SOURCE === '1' ? [process.execPath, join(repoRoot, 'cli', 'main.ts'), 'serve'] : [process.env.BENCH_GATEWAY_SVC ?? distBinary, 'serve'];
    const serveCmd = pin ? ['taskset', ['-c', GATEWAY_CORE, ...serve]] : [serve[0], serve.slice(1)];
    // BENCH_GATEWAY_NODE_OPTIONS profiles the gateway, e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof'.
    const extra = process.env.BENCH_GATEWAY_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_GATEWAY_NODE_OPTIONS } : {};
    svc = await startServer(serveCmd[0], serveCmd[1], { HOME: home.dir, PATH: '/usr/bin:/bin', SERVICE_DB_PATH: join(home.dir, 'svc.db'), ...extra, ...(process.env.BENCH_GATEWAY_LOG_LEVEL ? { SERVICE_LOG_LEVEL: process.env.BENCH_GATEWAY_LOG_LEVEL } : {}) });
    const gwOrigin = `http://127.0.0.1:${svc.port}`;
    const owner = {};
    const key = await setUp(gwOrigin, fake.url, owner);
    await owner.call('POST', '/api/app/provider-accounts', { provider: 'openai-compatible', name: 'Paced', slug: 'paced', baseUrl: paced.url, models: ['bench-model'] }, 201);
    const overhead = () => owner.text('/api/admin/metrics').then(overheadBuckets);

    // The floor, on the gateway's core.
    const bareCmd = [process.execPath, join(repoRoot, 'test', 'bench', 'bare-proxy.mjs'), fake.origin];
    bare = await startServer(pin ? 'taskset' : bareCmd[0], pin ? ['-c', GATEWAY_CORE, ...bareCmd] : bareCmd.slice(1), { PATH: '/usr/bin:/bin' }, '/health');
    const viaBare = { origin: `http://127.0.0.1:${bare.port}`, path: '/api/v1/chat/completions', model: 'bench-model', key: 'sk-unused' };
    const gw = { origin: gwOrigin, path: '/api/v1/chat/completions', model: 'bench/bench-model', key };
    const direct = { origin: fake.origin, path: '/v1/chat/completions', model: 'bench-model', key: 'sk-unused' };
    if (pin) taskset(['-a', '-p', '-c', GATEWAY_CORE, String(fake.child.pid)]);
    const own = {};
    const lat = await latencies(gw, direct, viaBare, false, async () => (own.before = await overhead()));
    own.plain = histogramDelta(await overhead(), own.before, 'chat');
    const ttft = await latencies(gw, direct, viaBare, true, async () => (own.before = await overhead()));
    own.stream = histogramDelta(await overhead(), own.before, 'chat.stream');
    if (pin) taskset(['-a', '-p', '-c', CLIENT_CORE, String(fake.child.pid)]);
    await bare.stop();

    const rss = { peak: 0 };
    const sampler = setInterval(() => (rss.peak = Math.max(rss.peak, rssMB(svc.child.pid))), 50);
    const gwLoad = await withCpu(svc.child.pid, () => load(gw.origin, gw.path, { connections: CONNECTIONS, seconds: SECONDS, ...post(gw, false) })).finally(() => clearInterval(sampler));
    // So both servers run alone on a core.
    if (pin) taskset(['-a', '-p', '-c', GATEWAY_CORE, String(fake.child.pid)]);
    const fakeLoad = await withCpu(fake.child.pid, () => load(direct.origin, direct.path, { connections: CONNECTIONS, seconds: SECONDS, ...post(direct, false) }));
    const fakeStream = await withCpu(fake.child.pid, () => load(direct.origin, direct.path, { connections: CONNECTIONS, seconds: SECONDS, ...post(direct, true) }));
    if (pin) taskset(['-a', '-p', '-c', CLIENT_CORE, String(fake.child.pid)]);
    const gwStream = await withCpu(svc.child.pid, () => load(gw.origin, gw.path, { connections: CONNECTIONS, seconds: SECONDS, ...post(gw, true) }));
    // Embeddings take the Hono path (no fast lane): its per-request cost, body limit included.
    const gwEmb = await withCpu(svc.child.pid, () => load(gw.origin, EMBEDDINGS, { connections: CONNECTIONS, seconds: SECONDS, ...embed(gw) }));
    if (pin) taskset(['-a', '-p', '-c', GATEWAY_CORE, String(fake.child.pid)]);
    const fakeEmb = await withCpu(fake.child.pid, () => load(direct.origin, '/v1/embeddings', { connections: CONNECTIONS, seconds: SECONDS, ...embed(direct) }));
    if (pin) taskset(['-a', '-p', '-c', CLIENT_CORE, String(fake.child.pid)]);
    // Paced streams: svc's CPU per event forwarded, against the paced fake's own CPU per event sent.
    const gwPaced = { ...gw, model: 'paced/bench-model' };
    const directPaced = { ...direct, origin: paced.origin };
    const events = await eventsPerStream(gwPaced);
    const svcPaced = await withCpu(svc.child.pid, () => load(gw.origin, gw.path, { connections: CONNECTIONS, seconds: SECONDS, ...post(gwPaced, true) }));
    const fakePaced = await withCpu(paced.child.pid, () => load(directPaced.origin, directPaced.path, { connections: CONNECTIONS, seconds: SECONDS, ...post(directPaced, true) }));

    const added = (a, b) => `adds ${(a - b).toFixed(0)} µs`;
    const overBare = (set, q) => `${added(set.gw[q], set.direct[q])}; a bare node proxy adds ${(set.bare[q] - set.direct[q]).toFixed(0)} µs`;
    const note = (extra) => [pin ? undefined : 'not pinned: fewer than 2 cores or no taskset', extra].filter(Boolean).join('; ') || undefined;
    return [
      row(`chat p50 latency, c=1 (µs; baseline: fake direct)`, lat.gw.p50, lat.direct.p50, 'added ≤ 250 µs', lat.gw.p50 - lat.direct.p50 <= 250, note(overBare(lat, 'p50'))),
      row(`chat p99 latency, c=1 (µs)`, lat.gw.p99, lat.direct.p99, 'added ≤ 1000 µs', lat.gw.p99 - lat.direct.p99 <= 1000, note(overBare(lat, 'p99'))),
      row(`chat p50 latency via svc, c=1 (µs; baseline: via a bare node proxy)`, lat.gw.p50, lat.bare.p50, '', undefined, note(`svc's own share: ${(lat.gw.p50 - lat.bare.p50).toFixed(0)} µs`)),
      ownRow('chat', own.plain),
      row(`stream first data: chunk p50, c=1 (µs)`, ttft.gw.p50, ttft.direct.p50, '', undefined, note(overBare(ttft, 'p50'))),
      row(`stream first data: chunk p99, c=1 (µs)`, ttft.gw.p99, ttft.direct.p99, 'added ≤ 1000 µs', ttft.gw.p99 - ttft.direct.p99 <= 1000, note(overBare(ttft, 'p99'))),
      ownRow('chat.stream', own.stream),
      row(`chat req/s, ${CONNECTIONS} conns, ${SECONDS} s, gateway on 1 core`, gwLoad.rps, fakeLoad.rps, '≥ 4000 req/s', gwLoad.rps >= 4000 && gwLoad.errors === 0,
        note(gwLoad.errors || fakeLoad.errors ? `${gwLoad.errors}/${fakeLoad.errors} errors` : undefined)),
      // req/s also reflects whoever else ran; CPU per request does not.
      row(`chat CPU per request under that load (µs; baseline: the fake's own)`, gwLoad.cpuUs, fakeLoad.cpuUs, '', undefined,
        note(`one core ≈ ${Math.round(1e6 / gwLoad.cpuUs)} req/s`)),
      row(`gateway peak RSS under that load (MB)`, rss.peak, undefined, '≤ 200 MB', rss.peak <= 200, note()),
      row(`streamed chat CPU per request, ${CONNECTIONS} conns (µs; baseline: the fake's own)`, gwStream.cpuUs, fakeStream.cpuUs, '', undefined,
        note([`${Math.round(gwStream.rps)} req/s`, gwStream.errors || fakeStream.errors ? `${gwStream.errors}/${fakeStream.errors} errors` : ''].filter(Boolean).join('; '))),
      row(`embeddings (Hono path) CPU per request, ${CONNECTIONS} conns (µs; baseline: the fake's own)`, gwEmb.cpuUs, fakeEmb.cpuUs, '', undefined,
        note([`${Math.round(gwEmb.rps)} req/s`, gwEmb.errors || fakeEmb.errors ? `${gwEmb.errors}/${fakeEmb.errors} errors` : ''].filter(Boolean).join('; '))),
      row(`paced streams (events 1 ms apart), ${CONNECTIONS} conns: CPU per event (µs; baseline: the fake's own)`, svcPaced.cpuUs / events, fakePaced.cpuUs / events, '', undefined,
        note(`${events} events per stream; ${Math.round(svcPaced.rps * events)} events/s`)),
    ];
  } finally {
    await paced?.stop();
    await svc?.stop();
    await bare?.stop();
    await fake?.stop();
    restoreAffinity();
    home.remove();
  }
}

/** Adds the server's CPU µs per served request, warm-up included. */
async function withCpu(pid, fn) {
  const cpu = () => {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / clockTicks;
  };
  const c0 = cpu();
  const t0 = performance.now();
  const r = await fn();
  const cpuSeconds = cpu() - c0;
  const served = r.rps * ((performance.now() - t0) / 1000);
  return { ...r, cpuUs: (cpuSeconds * 1e6) / served };
}

const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** [DONE] included: it is written too. */
async function eventsPerStream(t) {
  const r = await fetch(t.origin + t.path, post(t, true));
  const text = await r.text();
  if (r.status !== 200) throw new Error(`bench: ${t.path} answered ${r.status}: ${text}`);
  return text.split('\n\n').filter((e) => e.startsWith('data:')).length;
}

function row(metric, value, baseline, target, ok, note) {
  return { metric, value, ...(baseline === undefined ? {} : { baseline }), ...(target ? { target } : {}), ...(ok === undefined ? {} : { ok }), ...(note ? { note } : {}) };
}

const EMBEDDINGS = '/api/v1/embeddings';
const embed = (t) => ({ method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${t.key}` }, body: JSON.stringify({ model: t.model, input: 'Say hello in one short sentence.' }) });

const chatBody = (model, stream) => JSON.stringify({ model, messages: [{ role: 'user', content: 'Say hello in one short sentence.' }], ...(stream ? { stream: true } : {}) });

export function post(t, stream) {
  return { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${t.key}` }, body: chatBody(t.model, stream) };
}

/** Alternated, so drift hits both; streamed: time to the first `data:` chunk. */
async function latencies(gw, direct, bare, stream, afterWarmup) {
  const all = [gw, direct, bare];
  const pools = all.map((t) => new Pool(t.origin, { connections: 1, pipelining: 1 }));
  const targets = all.map((t, i) => ({ pool: pools[i], path: t.path, ...post(t, stream) }));
  const samples = all.map(() => []);
  try {
    for (let i = 0; i < LATENCY_WARMUP + LATENCY_REQUESTS; i++) {
      if (i === LATENCY_WARMUP) await afterWarmup();
      for (let k = 0; k < targets.length; k++) {
        const ms = await once(targets[k], stream);
        if (i >= LATENCY_WARMUP) samples[k].push(ms * 1000);
      }
    }
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
  return { gw: percentiles(samples[0]), direct: percentiles(samples[1]), bare: percentiles(samples[2]) };
}

/** The dispatch API: pool.request()'s objects would put the client's GC pauses in every tail. */
export function once(t, stream) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let status = 0;
    let first;
    let text = '';
    t.pool.dispatch({ method: 'POST', path: t.path, headers: t.headers, body: t.body }, {
      onRequestStart() {},
      onResponseStart(_c, statusCode) {
        status = statusCode;
      },
      onResponseData(_c, chunk) {
        if (status !== 200) text += chunk;
        else if (stream && first === undefined && chunk.includes('data:')) first = performance.now() - t0;
      },
      onResponseEnd() {
        if (status !== 200) return reject(new Error(`bench: ${t.path} answered ${status}: ${text}`));
        if (!stream) return resolve(performance.now() - t0);
        if (first === undefined) return reject(new Error(`bench: ${t.path} streamed no data: line`));
        resolve(first);
      },
      onResponseError(_c, err) {
        reject(err);
      },
    });
  });
}

function percentiles(xs) {
  const s = xs.sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

/** On the client's core. */

/** Owner, an account on the fake, high limits, a member key; `owner.*` calls use the session. */
export async function setUp(origin, fakeUrl, owner = {}) {
  const { user, call, text } = await signUpOwner(origin);
  owner.text = text;
  owner.call = call;
  await call('POST', '/api/app/provider-accounts', { provider: 'openai-compatible', name: 'Bench', slug: 'bench', baseUrl: fakeUrl, models: ['bench-model'] }, 201);
  const high = { requestsPerMinute: 10_000_000, tokensPerMinute: 1_000_000_000, tokensPerMonth: null };
  await call('PUT', '/api/app/limits', high, 200);
  // The member's own limits replace the per-user chat allowance (RATE_LIMIT_CHAT_PER_MINUTE).
  await call('PUT', `/api/app/limits/members/${user.id}`, high, 200);
  const { token } = await call('POST', '/api/app/keys', { name: 'bench' }, 201);
  return token;
}

function taskset(args) {
  return execFileSync('taskset', args, { encoding: 'utf8' });
}

/** Every thread; returns a function restoring the previous mask. */
function pinSelf(core) {
  const before = /:\s*([0-9a-f]+)\s*$/i.exec(taskset(['-p', String(process.pid)]))?.[1];
  taskset(['-a', '-p', '-c', core, String(process.pid)]);
  return () => {
    if (before) taskset(['-a', '-p', before, String(process.pid)]);
  };
}

/** svc's own share, without hops or VM wake-ups; a bucket bound: the p99 is at or under it. */
function ownRow(route, h) {
  const share = (le) => ((100 * (h.buckets.find((b) => b.le >= le)?.count ?? h.count)) / h.count).toFixed(1);
  const p99 = h.buckets.find((b) => b.count >= 0.99 * h.count)?.le;
  return row(`svc's own time (svc_gateway_overhead_seconds{route="${route}"}), p99 ≤ (µs)`, p99 === undefined ? NaN : p99 * 1e6, undefined, '', undefined,
    `${h.count} requests: ${share(0.00005)}% ≤ 50 µs, ${share(0.0001)}% ≤ 100 µs, ${share(0.00025)}% ≤ 250 µs, ${share(0.001)}% ≤ 1 ms`);
}

/** Cumulative, by route. */
function overheadBuckets(text) {
  const by = {};
  for (const m of text.matchAll(/^svc_gateway_overhead_seconds_(bucket|count)\{([^}]*)\} (\d+)$/gm)) {
    const labels = Object.fromEntries([...m[2].matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    const series = (by[labels.route] ??= []);
    if (m[1] === 'count') series.count = Number(m[3]);
    else if (labels.le !== '+Inf') series.push({ le: Number(labels.le), count: Number(m[3]) });
  }
  return by;
}

function histogramDelta(after, before, route) {
  const a = after[route] ?? [];
  const b = before[route] ?? [];
  const buckets = a.map((x, i) => ({ le: x.le, count: x.count - (b[i]?.count ?? 0) })).sort((x, y) => x.le - y.le);
  return { buckets, count: (a.count ?? 0) - (b.count ?? 0) };
}
