import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../kernel/config/index.ts';
import { findProgram } from '../sandbox/host.ts';
import { checkSandbox } from './sandbox-checks.ts';
import { healthy } from './types.ts';

const config = (env: Record<string, string> = {}) => loadConfig({ HOME: '/h', ...env }).config;

describe('doctor: sandbox', () => {
  it('runs a one-line program through the container driver and says how each limit is enforced', async () => {
    const f = await checkSandbox(config());
    assert.equal(healthy(f), true, JSON.stringify(f));
    assert.match(f[0]!.message, /container driver, node: a one-line program ran in \d+ ms \(memory: cgroup v\d, processes: cgroup v\d, cpu: RLIMIT_CPU, storage: tmpfs, network: loopback only\)/);
  });
  it('the python runtime too', async () => {
    const f = await checkSandbox(config({ SERVICE_SANDBOX_RUNTIME: 'python' }));
    assert.equal(f[0]?.status, 'ok', JSON.stringify(f));
  });
  it('bubblewrap missing: fails and names the package', async () => {
    const f = await checkSandbox(config(), { findProgram: (n) => (n === 'bwrap' ? undefined : findProgram(n)) });
    assert.equal(f[0]?.status, 'fail');
    assert.match(f[0]!.message, /bubblewrap \(bwrap\) is not installed/);
    assert.match(f[0]!.fix!, /apt-get install bubblewrap/);
  });
  it('user namespaces refused: fails with the sysctl to change', async () => {
    // A bwrap that behaves like one on a kernel without unprivileged user namespaces.
    const dir = mkdtempSync(join(tmpdir(), 'svc-doctor-bwrap-'));
    const fake = join(dir, 'bwrap');
    writeFileSync(fake, '#!/bin/sh\n[ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }\necho "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n');
    chmodSync(fake, 0o755);
    const f = await checkSandbox(config(), { findProgram: (n) => (n === 'bwrap' ? fake : findProgram(n)) });
    assert.equal(f[0]?.status, 'fail', JSON.stringify(f));
    assert.match(f[0]!.message, /the sandbox did not start: bwrap: No permissions/);
    assert.match(f[0]!.fix!, /unprivileged_userns_clone|max_user_namespaces/);
  });
  it('python missing: fails and says how to point at one', async () => {
    const f = await checkSandbox(config({ SERVICE_SANDBOX_RUNTIME: 'python', SERVICE_SANDBOX_PYTHON: '/nonexistent/python3' }));
    assert.equal(f[0]?.status, 'fail');
    assert.match(f[0]!.fix!, /SERVICE_SANDBOX_PYTHON/);
  });
  it('the none driver works and is flagged as unconfined', async () => {
    const f = await checkSandbox(config({ SERVICE_SANDBOX_DRIVER: 'none' }));
    assert.equal(f[0]?.status, 'ok', JSON.stringify(f));
    assert.equal(f[1]?.status, 'warn');
    assert.match(f[1]!.message, /unconfined/);
  });
});
