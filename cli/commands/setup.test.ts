import { test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../core/kernel/config/index.ts';
import { SECRET_NAMES } from '../../core/kernel/config/schema.ts';
import { parseEnvFile, productionEnv, setup } from './setup.ts';

const opts = (dir: string) => ({
  envFile: join(dir, 'etc', 'svc.env'),
  appOrigin: 'https://svc.example.com',
  previewOrigin: 'https://preview.example.com',
  dataDir: join(dir, 'data'),
  port: '8484',
});

test('the written file is a production configuration svc accepts, with seven distinct fresh secrets', () => {
  const env = parseEnvFile(productionEnv(opts('/srv')));
  const { config } = loadConfig({ HOME: '/srv', ...env });
  assert.equal(config.production, true);
  assert.equal(config.SERVICE_HOST, '127.0.0.1');
  assert.equal(config.SERVICE_TRUST_PROXY, true);
  const secrets = SECRET_NAMES.map((n) => env[n]);
  assert.equal(new Set(secrets).size, SECRET_NAMES.length);
  assert.notEqual(parseEnvFile(productionEnv(opts('/srv'))).SERVICE_VAULT_KEY, env.SERVICE_VAULT_KEY, 'fresh every time');
});

test('setup writes mode 0600, never replaces a file without --force, and refuses http origins', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-setup-'));
  const o = opts(dir);
  const write = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    await setup(o);
    assert.equal(statSync(o.envFile).mode & 0o777, 0o600);
    const first = readFileSync(o.envFile, 'utf8');
    await assert.rejects(setup(o), /exists; it was not changed.*--force/);
    assert.equal(readFileSync(o.envFile, 'utf8'), first);
    await setup({ ...o, force: true });
    assert.notEqual(readFileSync(o.envFile, 'utf8'), first);
    const other = join(dir, 'other.env');
    await assert.rejects(setup({ ...o, envFile: other, appOrigin: 'http://svc.example.com' }), /SERVICE_APP_ORIGIN: must be an https/);
    assert.throws(() => statSync(other), 'nothing written for a bad configuration');
  } finally {
    process.stdout.write = write;
  }
});
