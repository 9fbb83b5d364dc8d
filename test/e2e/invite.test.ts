// `svc invite` end to end through the built binary, on SQLite and on PostgreSQL: the CLI writes to
// the store directly, and a token it prints must register through the running server (same secrets
// file, so the same token-hash key).
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { cleanEnv, ensureBuilt, freePort, isolatedBinary, runSync, start, stop, waitForStatus, type Running, type Sandbox } from '../helpers/binary.ts';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/pgdb.ts';
import { startRelay } from '../integration/invitation-helpers.ts';

let sb: Sandbox;
beforeAll(() => {
  ensureBuilt();
  sb = isolatedBinary();
});
afterAll(() => sb?.cleanup());

const TOKEN = /svc_inv_[0-9A-Za-z]{36}/;

test('invite and each of its subcommands have --help', () => {
  for (const args of [['invite'], ['invite', 'create'], ['invite', 'list'], ['invite', 'resend'], ['invite', 'revoke']]) {
    const r = runSync(sb, [...args, '--help']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^Usage: svc ${args.join(' ')}`, 'm'));
  }
  const missing = runSync(sb, ['invite', 'create', '--email', 'a@example.com']);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /required option '--role <role>'/);
});

for (const store of ['sqlite', 'postgres'] as const) {
  describe(`svc invite through dist/svc (${store})`, () => {
    let pg: ScratchDatabase | undefined;
    let env: Record<string, string>;
    let server: Running | undefined;
    let base: string;

    const svc = (...args: string[]) => runSync(sb, args, env);
    const ok = (...args: string[]) => {
      const r = svc(...args);
      assert.equal(r.status, 0, `svc ${args.join(' ')}:\n${r.stdout}\n${r.stderr}`);
      return r;
    };
    const fails = (pattern: RegExp, ...args: string[]) => {
      const r = svc(...args);
      assert.equal(r.status, 1, `svc ${args.join(' ')} should fail:\n${r.stdout}\n${r.stderr}`);
      assert.match(r.stderr, pattern);
      return r;
    };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, json: (await res.json().catch(() => undefined)) as any };
    };
    const signUp = (email: string, invitationToken: string) =>
      post('/api/auth/register', { email, password: 'a long enough password', name: 'Invitee', invitationToken });
    const listed = (id?: string) => {
      const r = ok('invite', 'list', '--json');
      const parsed = JSON.parse(r.stdout) as { workspace: { id: string; name: string }; data: Array<Record<string, string>> };
      return { raw: r.stdout, ...parsed, row: id ? parsed.data.find((i) => i.id === id) : undefined };
    };

    beforeAll(async () => {
      const home = join(sb.home, store);
      mkdirSync(home);
      if (store === 'postgres') pg = await createScratchDatabase('svc_e2e_invite');
      env = cleanEnv(home, pg ? { SERVICE_STORE: 'postgres', DATABASE_URL: pg.url } : {});
    });
    afterAll(async () => {
      if (server) await stop(server);
      await pg?.drop();
    });

    test('before migrations the CLI refuses and says to run svc migrate', () => {
      fails(/run svc migrate/, 'invite', 'list');
    });

    test('with no account yet it explains that the first account registers at /sign-up', async () => {
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      server = start(sb, ['serve'], { ...env, PORT: String(port) });
      await waitForStatus(server, `${base}/api/health/ready`);
      fails(/no account exists yet.*first account registers without an invitation at http:\/\/localhost:8484\/sign-up/, 'invite', 'create', '--email', 'x@example.com', '--role', 'member');
    });

    let ownerWorkspace: string;
    test('bootstrap owner registers through the server', async () => {
      const r = await post('/api/auth/register', { email: 'owner@example.com', password: 'a long enough password', name: 'Owner' });
      assert.equal(r.status, 201, JSON.stringify(r.json));
      ownerWorkspace = r.json.workspaces[0].id;
    });

    test('create prints the token and link once; the token registers through the HTTP API', async () => {
      const r = ok('invite', 'create', '--email', 'New@Example.com', '--role', 'admin');
      const token = TOKEN.exec(r.stdout)?.[0];
      assert.ok(token, r.stdout);
      assert.match(r.stdout, new RegExp(`sign-up link: http://localhost:8484/sign-up\\?invite=${token}`));
      const id = /invitation (inv_[0-9a-z]{20})/.exec(r.stdout)![1]!;

      const l = listed(id);
      assert.equal(l.workspace.id, ownerWorkspace, 'default workspace: the operator workspace');
      assert.ok(!l.raw.includes(token), 'list --json never shows the token');
      assert.equal(l.row!.status, 'pending');
      assert.equal(l.row!.email, 'new@example.com');
      assert.equal(l.row!.tokenPreview, `svc_inv_…${token.slice(-4)}`);

      const plain = ok('invite', 'list');
      assert.match(plain.stdout, /^ID\s+EMAIL\s+ROLE\s+STATUS/m);
      assert.match(plain.stdout, new RegExp(`^${id}\\s+new@example.com\\s+admin\\s+pending\\s`, 'm'));
      assert.ok(!plain.stdout.includes(token));

      const reg = await signUp('new@example.com', token);
      assert.equal(reg.status, 201, JSON.stringify(reg.json));
      assert.ok(reg.json.workspaces.some((w: { id: string; role: string }) => w.id === ownerWorkspace && w.role === 'admin'));
      assert.equal(listed(id).row!.status, 'used');
      assert.equal((await signUp('new@example.com', token)).status, 403, 'single use');
    });

    test('create --json; resend replaces the token; revoke; closed invitations cannot be resent', async () => {
      const created = JSON.parse(ok('invite', 'create', '--email', 'later@example.com', '--role', 'owner', '--json').stdout);
      assert.match(created.token, TOKEN);
      assert.equal(created.role, 'owner', 'the CLI acts with owner rights');
      assert.equal(created.signUpUrl, `http://localhost:8484/sign-up?invite=${created.token}`);

      const resent = JSON.parse(ok('invite', 'resend', created.id, '--json').stdout);
      assert.equal(resent.id, created.id);
      assert.notEqual(resent.token, created.token);
      assert.ok(resent.expiresAt >= created.expiresAt);
      assert.equal((await signUp('later@example.com', created.token)).status, 403, 'the old token is dead');

      const revoked = ok('invite', 'revoke', created.id);
      assert.match(revoked.stdout, /revoked invitation/);
      assert.equal(listed(created.id).row!.status, 'revoked');
      assert.equal((await signUp('later@example.com', resent.token)).status, 403);
      fails(/already used or revoked/, 'invite', 'resend', created.id);
      fails(/already used or revoked/, 'invite', 'revoke', created.id);
      fails(/no invitation inv_00000000000000000000/, 'invite', 'revoke', 'inv_00000000000000000000');
    });

    test('with a relay configured, the CLI delivers the invitation too and reports the outcome', async () => {
      const relay = await startRelay();
      try {
        // Asynchronously: a spawnSync would block this process, and with it the relay's answers.
        const stdout = await new Promise<string>((resolve, reject) =>
          execFile('./svc', ['invite', 'create', '--email', 'mailed@example.com', '--role', 'viewer', '--json'], {
            cwd: sb.dir,
            env: { ...env, SERVICE_INVITATION_EMAIL_URL: relay.url },
            timeout: 60_000,
          }, (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out))),
        );
        const inv = JSON.parse(stdout);
        assert.equal(inv.deliveryStatus, 'sent');
        assert.equal(relay.requests.length, 1);
        assert.equal(JSON.parse(relay.requests[0]!.body).signUpUrl, inv.signUpUrl);
        assert.match(String(relay.requests[0]!.headers['x-svc-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);
        assert.equal(listed(inv.id).row!.deliveryStatus, 'sent');
      } finally {
        await relay.close();
      }
    });

    test('a second create for the same address says which pending invitation it replaced', () => {
      const first = JSON.parse(ok('invite', 'create', '--email', 'twice@example.com', '--role', 'member', '--json').stdout);
      assert.deepEqual(first.replacedInvitationIds, []);
      const second = ok('invite', 'create', '--email', 'twice@example.com', '--role', 'member');
      assert.match(second.stdout, new RegExp(`note: this replaces the pending invitation ${first.id} for the same address; its link no longer works`));
      assert.equal(listed(first.id).row!.status, 'revoked');
    });

    test('list on a terminal: NO_COLOR gives no escape codes; a narrow terminal gets one block per invitation', () => {
      const tty = (cmd: string, extra: Record<string, string> = {}) =>
        spawnSync('script', ['-qec', cmd, '/dev/null'], { cwd: sb.dir, env: { ...env, TERM: 'xterm', ...extra }, encoding: 'utf8', timeout: 60_000 }).stdout;
      const coloured = tty('stty cols 200; ./svc invite list', { FORCE_COLOR: '1' });
      assert.match(coloured, /\x1b\[/, 'the ink table is coloured by default');
      const plain = tty('stty cols 200; ./svc invite list', { NO_COLOR: '1', FORCE_COLOR: '1' });
      assert.doesNotMatch(plain, /\x1b\[/);
      assert.match(plain, /^ID\s+EMAIL\s+ROLE\s+STATUS/m);
      const narrow = tty('stty cols 60; ./svc invite list', { NO_COLOR: '1' });
      assert.match(narrow, /^email\s+twice@example\.com\r?$/m);
      assert.ok(narrow.split(/\r?\n/).filter((l) => !l.startsWith('workspace ')).every((l) => l.length <= 60), narrow);
      const narrowInk = tty('stty cols 60; ./svc invite list');
      assert.match(narrowInk, /email\s+twice@example\.com/);
    });

    test('svc user reset-password prints a one-time link that sets a new password', async () => {
      const r = ok('user', 'reset-password', '--email', 'Owner@Example.com');
      const url = /^http:\/\/localhost:8484\/reset-password\?token=(svc_rst_\w+)$/m.exec(r.stdout);
      assert.ok(url, r.stdout);
      assert.equal((await post('/api/auth/reset-password', { token: url[1], newPassword: 'the operator reset this' })).status, 204);
      assert.equal((await post('/api/auth/login', { email: 'owner@example.com', password: 'the operator reset this' })).status, 200);
      assert.equal((await post('/api/auth/reset-password', { token: url[1], newPassword: 'and once more please' })).status, 403, 'single use');
      fails(/svc user reset-password: no account with the address nobody@example\.com/, 'user', 'reset-password', '--email', 'nobody@example.com');
    });

    test('same validation as the API; --workspace selects by id and refuses unknown ones', () => {
      fails(/role must be one of viewer, member, admin, owner/, 'invite', 'create', '--email', 'x@example.com', '--role', 'root');
      fails(/email is not a valid address/, 'invite', 'create', '--email', 'nope', '--role', 'member');
      fails(/already a member/, 'invite', 'create', '--email', 'owner@example.com', '--role', 'member');
      fails(/no workspace "ws_nope"/, 'invite', 'list', '--workspace', 'ws_nope');
      const r = JSON.parse(ok('invite', 'list', '--workspace', ownerWorkspace, '--json').stdout);
      assert.equal(r.workspace.id, ownerWorkspace);
      assert.ok(r.data.length >= 2);
    });
  });
}
