// Sign-in and sign-up under bursts of parallel requests (issue 12 items 3 and 4), through the real
// HTTP server on both stores: the throttles reserve each attempt before any await, so parallel
// guesses cannot all pass the check; refused sign-ups cost no password hash and are throttled per
// client address; and password hashes, sign-ins and sign-ups together, never run more than the
// bound at once. Hashes are counted through the process's hasher (core.auth.hasher), which each
// test wraps before the app is built; a control sign-in or sign-up shows the count is live.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { defaultThrottles } from '../../core/accounts/login.ts';
import { register, signupThrottle } from '../../core/accounts/register.ts';
import { boundedHasher, HASH_CONCURRENCY, type PasswordHasher } from '../../core/auth/hasher.ts';
import { hashPassword, verifyPassword } from '../../core/auth/password.ts';
import type { Dialect } from '../../core/store/types.ts';
import { createApp } from '../../daemon/app.ts';
import { accountsDeps } from '../../core/services.ts';
import { startServer, type ServerHandle } from '../../daemon/server.ts';
import { invite } from './accounts-helpers.ts';
import { testCore, type Fixture } from './http-fixture.ts';

const PASSWORD = 'correct horse battery';
const BURST = 41;

interface Counted {
  hashes: number;
  verifies: number;
  /** Most hashes and verifications in flight at once. */
  most: number;
  /** Hashes and verifications asked for (before the bound). */
  entered: number;
  /** While set, hashes and verifications wait here before the bound. */
  gate?: Promise<void>;
}

/** The core's hasher, bounded as in production, over scrypt calls that are counted. */
function countingHasher(fx: Fixture): Counted {
  const c: Counted = { hashes: 0, verifies: 0, most: 0, entered: 0 };
  let inflight = 0;
  const track = async <T>(fn: () => Promise<T>): Promise<T> => {
    c.most = Math.max(c.most, ++inflight);
    try {
      return await fn();
    } finally {
      inflight--;
    }
  };
  const bounded = boundedHasher({
    cost: fx.core.auth.scrypt,
    impl: {
      hash: (p, cost) => (c.hashes++, track(() => hashPassword(p, cost))),
      verify: (p, s) => (c.verifies++, track(() => verifyPassword(p, s))),
    },
  });
  const hasher: PasswordHasher = {
    hash: async (p) => {
      c.entered++;
      await c.gate;
      return bounded.hash(p);
    },
    verify: async (p, s) => {
      c.entered++;
      await c.gate;
      return bounded.verify(p, s);
    },
  };
  fx.core.auth.hasher = hasher;
  return c;
}

/** Closes the gate: hashes and verifications wait until the returned function opens it. */
function hold(c: Counted): () => void {
  let open!: () => void;
  c.gate = new Promise<void>((r) => (open = r));
  c.entered = 0;
  return () => {
    c.gate = undefined;
    open();
  };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`sign-in and sign-up bursts [${store}]`, () => {
    let fx: Fixture;
    let server: ServerHandle;
    let counted: Counted;
    let base: string;
    let ownerWorkspace: string;
    let ownerId: string;
    const post = (path: string, body: unknown) =>
      fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const burst = async (n: number, body: (i: number) => unknown, path: string) => {
      const all = await Promise.all(Array.from({ length: n }, (_, i) => post(path, body(i))));
      const statuses = all.map((r) => r.status);
      await Promise.all(all.map((r) => r.body?.cancel()));
      const tally: Record<number, number> = {};
      for (const s of statuses) tally[s] = (tally[s] ?? 0) + 1;
      return tally;
    };
    // Fresh throttles per test (the routes read them from core.auth at each request).
    const resetThrottles = () => {
      fx.core.auth.throttles = defaultThrottles();
      fx.core.auth.signups = signupThrottle();
    };

    beforeAll(async () => {
      fx = await testCore({ store });
      counted = countingHasher(fx);
      server = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1', app: createApp(fx.core, fx.services) });
      base = `http://127.0.0.1:${server.port}`;
      const boot = await post('/api/auth/register', { email: 'owner@example.test', password: PASSWORD });
      assert.equal(boot.status, 201);
      const body = (await boot.json()) as { user: { id: string }; workspaces: { id: string }[] };
      ownerId = body.user.id;
      ownerWorkspace = body.workspaces[0]!.id;
    });
    afterAll(async () => {
      await server.close(1000);
      await fx.cleanup();
    });

    test(`${BURST} parallel wrong sign-ins on one account: 10 evaluated (401), the rest 429 before any hash`, async () => {
      resetThrottles();
      counted.verifies = 0;
      // Every guess is held before its verification until all have arrived: all 41 overlap.
      const open = hold(counted);
      let answered = 0;
      const pending = Array.from({ length: BURST }, () => post('/api/auth/login', { email: 'owner@example.test', password: 'wrong password' }).finally(() => answered++));
      await until(() => counted.entered + answered === BURST, 'every guess held or answered');
      open();
      const all = await Promise.all(pending);
      await Promise.all(all.map((r) => r.body?.cancel()));
      assert.deepEqual(all.map((r) => r.status).sort(), [...Array<number>(10).fill(401), ...Array<number>(BURST - 10).fill(429)]);
      assert.equal(counted.verifies, 10, 'one verification per evaluated guess');
    });

    test(`${BURST} parallel wrong sign-ins on as many unknown accounts from one address: the address allowance (30) evaluated`, async () => {
      resetThrottles();
      counted.verifies = 0;
      const tally = await burst(BURST, (i) => ({ email: `nobody${i}@example.test`, password: 'wrong password' }), '/api/auth/login');
      assert.deepEqual(tally, { 401: 30, 429: BURST - 30 });
      assert.equal(counted.verifies, 30);
    });

    test('correct sign-ins in flight fill the allowance only while in flight: 429 says retry in 1 s, and nothing is left counted', async () => {
      resetThrottles();
      // Sign-ins are held before their verification until all 14 have arrived, so they overlap.
      const open = hold(counted);
      let answered = 0;
      const pending = Array.from({ length: 14 }, () => post('/api/auth/login', { email: 'owner@example.test', password: PASSWORD }).finally(() => answered++));
      await until(() => counted.entered === 10 && answered === 4, 'ten sign-ins held and four answered');
      open();
      const all = await Promise.all(pending);
      assert.deepEqual(all.map((r) => r.status).sort(), [...Array<number>(10).fill(200), ...Array<number>(4).fill(429)]);
      for (const r of all.filter((x) => x.status === 429)) assert.equal(r.headers.get('retry-after'), '1');
      await Promise.all(all.map((r) => r.body?.cancel()));
      const { account, address } = fx.core.auth.throttles;
      assert.equal(account.retryAfter('owner@example.test', fx.clock.now()), 0);
      assert.equal(address.retryAfter('127.0.0.1', fx.clock.now()), 0);
      assert.equal((await post('/api/auth/login', { email: 'owner@example.test', password: PASSWORD })).status, 200);
    });

    test('refused sign-ups cost no hash: no invitation, a token that would not redeem, an address taken', async () => {
      resetThrottles();
      const inv = await invite(fx.core, ownerWorkspace, 'invited@example.test', 'member', ownerId);
      // An account that exists but is not in the owner's workspace, invited there: its sign-up is 409.
      await register({ ...accountsDeps(fx.core), registrationMode: 'open' }, { email: 'taken@example.test', password: PASSWORD, name: 'taken' });
      const taken = await invite(fx.core, ownerWorkspace, 'taken@example.test', 'member', ownerId);
      counted.hashes = 0;
      const tally = await burst(
        18,
        (i) =>
          [
            { email: `x${i}@example.test`, password: PASSWORD }, // invitation_required
            { email: `other${i}@example.test`, password: PASSWORD, invitationToken: inv.token }, // another address's token
            { email: 'taken@example.test', password: PASSWORD, invitationToken: taken.token }, // address taken: 409
          ][i % 3],
        '/api/auth/register',
      );
      assert.deepEqual(tally, { 403: 12, 409: 6 });
      assert.equal(counted.hashes, 0, 'no refused sign-up hashed its password');
      // Control: the invited address signs up, and that costs exactly one hash.
      assert.equal((await post('/api/auth/register', { email: 'invited@example.test', password: PASSWORD, invitationToken: inv.token })).status, 201);
      assert.equal(counted.hashes, 1);
    });

    test('refused sign-ups are throttled per address: 20 in 15 minutes, then 429 with Retry-After, even with a valid invitation', async () => {
      resetThrottles();
      counted.hashes = 0;
      const tally = await burst(BURST, (i) => ({ email: `y${i}@example.test`, password: PASSWORD }), '/api/auth/register');
      assert.deepEqual(tally, { 403: 20, 429: BURST - 20 });
      const inv = await invite(fx.core, ownerWorkspace, 'late@example.test', 'member', ownerId);
      const late = await post('/api/auth/register', { email: 'late@example.test', password: PASSWORD, invitationToken: inv.token });
      assert.equal(late.status, 429);
      assert.ok(Number(late.headers.get('retry-after')) > 0);
      assert.equal(((await late.json()) as { error: { code: string } }).error.code, 'too_many_attempts');
      fx.clock.advance(15 * 60_000 + 1);
      assert.equal((await post('/api/auth/register', { email: 'late@example.test', password: PASSWORD, invitationToken: inv.token })).status, 201);
      assert.equal(counted.hashes, 1);
    });

    test(`sign-ups and sign-ins together never run more than ${HASH_CONCURRENCY} hashes at once`, async () => {
      resetThrottles();
      counted.most = 0;
      const invitations = await Promise.all(Array.from({ length: 12 }, (_, i) => invite(fx.core, ownerWorkspace, `z${i}@example.test`, 'member', ownerId)));
      // All 20 are held until every one has asked for its hash, then let go together into the bound.
      const open = hold(counted);
      const pending = Promise.all([
        ...invitations.map((inv) => post('/api/auth/register', { email: inv.email, password: PASSWORD, invitationToken: inv.token })),
        ...Array.from({ length: 8 }, () => post('/api/auth/login', { email: 'owner@example.test', password: PASSWORD })),
      ]);
      await until(() => counted.entered === 20, 'twenty hashes asked for');
      open();
      const results = await pending;
      assert.deepEqual(results.map((r) => r.status), [...Array<number>(12).fill(201), ...Array<number>(8).fill(200)]);
      await Promise.all(results.map((r) => r.body?.cancel()));
      assert.equal(counted.most, HASH_CONCURRENCY, 'the bound was reached and held');
    });
  });
}
