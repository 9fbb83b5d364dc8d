// docs/deploy.md's production set-up, run as written: every `svc` command of its "Production set-up"
// block, with /etc, /var/lib and /usr/local/bin moved into a temporary directory, then `svc serve`
// started in production mode from the environment file `svc setup` wrote. Steps that need a real
// init system and user database (useradd, install -d -o, systemctl) and TLS termination are not run.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnvFile } from '../../cli/commands/setup.ts';
import { ensureBuilt, freePort, isolatedBinary, repoRoot, start, stop, waitForStatus, type Sandbox } from '../helpers/binary.ts';

let sb: Sandbox;
beforeAll(() => {
  ensureBuilt();
  sb = isolatedBinary();
});
afterAll(() => sb.cleanup());

/** The shell block under "## Production set-up". */
function setupBlock(): string[] {
  const doc = readFileSync(join(repoRoot, 'docs', 'deploy.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Production set-up'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block.trim().split('\n');
}

test('docs/deploy.md: install, svc setup and svc systemd as written give a production svc serve', async () => {
  const root = join(sb.home, 'root');
  const move = (line: string) =>
    line
      .replaceAll('~/.local/bin/svc', sb.bin)
      .replaceAll('/usr/local/bin/svc', join(root, 'usr/local/bin/svc'))
      .replaceAll('/etc/', join(root, 'etc') + '/')
      .replaceAll('/var/lib/svc', join(root, 'var/lib/svc'));
  const lines = setupBlock();
  assert.ok(lines.some((l) => l.startsWith('svc setup ')) && lines.some((l) => l.startsWith('svc systemd ')), lines.join('\n'));
  mkdirSync(join(root, 'usr/local/bin'), { recursive: true });
  mkdirSync(join(root, 'var/lib/svc'), { recursive: true });
  const installed = join(root, 'usr/local/bin/svc');
  for (const raw of lines) {
    const line = move(raw);
    if (raw.startsWith('install -m 755 ')) {
      const [, , , from, to] = line.split(' ');
      copyFileSync(from!, to!);
      continue;
    }
    if (!raw.startsWith('svc ')) continue; // useradd, install -d -o, systemctl, the doctor line
    const args = line.slice(4).split(' ');
    const r = spawnSync(installed, args, { env: { HOME: sb.home, PATH: '/usr/bin:/bin' }, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, `${raw}\n${r.stdout}${r.stderr}`);
  }
  const envFile = join(root, 'etc/svc/svc.env');
  assert.equal(statSync(envFile).mode & 0o777, 0o600);
  const unit = readFileSync(join(root, 'etc/systemd/system/svc.service'), 'utf8');
  assert.match(unit, new RegExp(`^ExecStart=${installed} serve$`, 'm'));
  assert.match(unit, new RegExp(`^EnvironmentFile=${envFile}$`, 'm'));

  // What systemd would do: the unit's environment, then the file, then start the binary.
  const port = await freePort();
  const env: Record<string, string> = { HOME: sb.home, PATH: '/usr/bin:/bin', ...parseEnvFile(readFileSync(envFile, 'utf8')), PORT: String(port) };
  assert.equal(env.NODE_ENV, 'production');
  const run = start(sb, ['serve'], env);
  try {
    await waitForStatus(run, `http://127.0.0.1:${port}/api/health/ready`);
    const res = await fetch(`http://127.0.0.1:${port}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@example.com', password: 'a long enough passphrase', name: 'Owner' }),
    });
    assert.equal(res.status, 201, await res.text());
    assert.match(res.headers.get('set-cookie') ?? '', /; Secure/i, 'production cookies are Secure');
  } finally {
    await stop(run);
  }
});
