import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../kernel/config/index.ts';
import { limitsFromConfig } from './index.ts';

describe('sandbox configuration', () => {
  it('defaults: the container driver, node, no network', () => {
    const { config } = loadConfig({ HOME: '/h' });
    assert.equal(config.SERVICE_SANDBOX_DRIVER, 'container');
    assert.deepEqual(limitsFromConfig(config), {
      timeoutMs: 10_000, cpuSeconds: 10, memoryMb: 256, maxProcesses: 64, tmpMb: 64, network: 'none', allowedHosts: [], allowPrivate: false,
    });
  });
  it('keeps the earlier names: bubblewrap is container, loopback is none', () => {
    const { config } = loadConfig({ HOME: '/h', SERVICE_SANDBOX_DRIVER: 'bubblewrap', SERVICE_SANDBOX_NETWORK: 'loopback' });
    assert.equal(config.SERVICE_SANDBOX_DRIVER, 'container');
    assert.equal(config.SERVICE_SANDBOX_NETWORK, 'none');
  });
  it('allowlist needs hosts, and takes hostnames or *.suffix only', () => {
    assert.throws(() => loadConfig({ HOME: '/h', SERVICE_SANDBOX_NETWORK: 'allowlist' }), (e: unknown) => e instanceof ConfigError && /SERVICE_SANDBOX_ALLOWED_HOSTS: required/.test(e.message));
    assert.throws(() => loadConfig({ HOME: '/h', SERVICE_SANDBOX_NETWORK: 'allowlist', SERVICE_SANDBOX_ALLOWED_HOSTS: 'http://x.com' }), ConfigError);
    const { config } = loadConfig({ HOME: '/h', SERVICE_SANDBOX_NETWORK: 'allowlist', SERVICE_SANDBOX_ALLOWED_HOSTS: 'API.example.com, *.pypi.org' });
    assert.deepEqual(limitsFromConfig(config).allowedHosts, ['api.example.com', '*.pypi.org']);
  });
  it('range-checks every limit by name', () => {
    for (const [k, v] of [['SERVICE_SANDBOX_MEMORY_MB', '8'], ['SERVICE_SANDBOX_MAX_PROCESSES', '2'], ['SERVICE_SANDBOX_TIMEOUT_MS', '10'], ['SERVICE_SANDBOX_DRIVER', 'docker']]) {
      assert.throws(() => loadConfig({ HOME: '/h', [k!]: v! }), (e: unknown) => e instanceof ConfigError && e.message.includes(k!), k);
    }
  });
});
