import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, resolveSecrets, SECRET_NAMES } from './index.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'svc-secrets-'));

describe('development secrets', () => {
  it('are generated once into a 0600 file beside the database and reused', () => {
    const dir = tmp();
    const { config } = loadConfig({ HOME: dir, SERVICE_DB_PATH: join(dir, 'data', 'svc.db') });
    const first = resolveSecrets(config);
    assert.equal(config.secretsFile, join(dir, 'data', 'secrets.json'));
    assert.equal(statSync(config.secretsFile).mode & 0o777, 0o600);
    assert.equal(first.generated.length, SECRET_NAMES.length);
    assert.match(first.warning!, /secrets\.json/);
    const values = Object.values(first.secrets);
    assert.equal(new Set(values).size, values.length, 'all distinct');
    for (const v of values) assert.ok(Buffer.byteLength(v) >= 32);
    const second = resolveSecrets(config);
    assert.deepEqual(second.secrets, first.secrets, 'stable across restarts');
  });
  it('environment values win and are not written to the file', () => {
    const dir = tmp();
    const { config } = loadConfig({ HOME: dir, SERVICE_DB_PATH: join(dir, 'svc.db'), SERVICE_VAULT_KEY: 'from-env-'.padEnd(40, 'k') });
    const r = resolveSecrets(config);
    assert.equal(r.secrets.SERVICE_VAULT_KEY, 'from-env-'.padEnd(40, 'k'));
    assert.ok(!readFileSync(config.secretsFile, 'utf8').includes('from-env-'));
    assert.ok(!r.generated.includes('SERVICE_VAULT_KEY'));
  });
  it('needs no file when every secret is set', () => {
    const dir = tmp();
    const env: NodeJS.ProcessEnv = { HOME: dir, SERVICE_DB_PATH: join(dir, 'svc.db') };
    SECRET_NAMES.forEach((n, i) => (env[n] = `s${i}`.padEnd(40, 'z')));
    const r = resolveSecrets(loadConfig(env).config);
    assert.equal(r.warning, undefined);
    assert.throws(() => statSync(join(dir, 'secrets.json')));
  });
});
