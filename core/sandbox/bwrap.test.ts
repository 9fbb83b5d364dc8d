import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { bwrapArgs, sandboxEnv } from './bwrap.ts';
import type { RuntimePlan } from './runtime.ts';

const runtime: RuntimePlan = {
  runtime: 'node', binds: [{ src: '/opt/svc/bin/svc', dest: '/usr/bin/node' }], symlinks: [], codeName: 'main.js',
  sandboxArgv: (c) => ['/usr/bin/node', '__sandbox-node', c], hostArgv: (c) => [c],
};

describe('bwrap arguments', () => {
  const args = bwrapArgs({ runtime, tmpBytes: 8 << 20, disableUserns: true });
  const joined = args.join(' ');
  it('every namespace, no capabilities, a cleared environment, a new session, dies with its parent', () => {
    for (const flag of ['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--clearenv']) assert.ok(args.includes(flag), flag);
    assert.match(joined, /--cap-drop ALL/);
    assert.ok(!args.includes('--share-net'));
  });
  it('binds the runtime read-only and nothing of the host besides libraries', () => {
    assert.match(joined, /--ro-bind \/opt\/svc\/bin\/svc \/usr\/bin\/node/);
    const binds = args.flatMap((a, i) => (/^--(ro-)?bind$|^--dev-bind$/.test(a) ? [args[i + 1]!] : []));
    for (const b of binds) assert.match(b, /^(\/usr\/lib|\/lib|\/opt\/svc\/bin\/svc$)/, `unexpected bind ${b}`);
    assert.ok(!args.includes('--bind'), 'no writable bind of a host path');
  });
  it('two size-capped tmpfs, and the root and /dev made read-only after everything is in place', () => {
    assert.match(joined, /--size 8388608 --tmpfs \/tmp --size 8388608 --tmpfs \/output/);
    const last = Math.max(args.indexOf('--tmpfs'), args.indexOf('--ro-bind-data'), args.lastIndexOf('--ro-bind'));
    assert.ok(args.indexOf('--remount-ro') > last);
    assert.match(joined, /--remount-ro \/dev --remount-ro \//);
    assert.equal(args.at(-1), '--');
  });
  it('the environment has no proxy without allowlist, and the proxy socket only with it', () => {
    assert.ok(!('HTTP_PROXY' in sandboxEnv({ runtime, tmpBytes: 1, disableUserns: true })));
    const withProxy = bwrapArgs({ runtime, tmpBytes: 1, disableUserns: false, proxySocket: '/tmp/x/egress.sock' });
    assert.match(withProxy.join(' '), /--ro-bind \/tmp\/x\/egress\.sock \/run\/svc\/egress\.sock/);
    assert.match(withProxy.join(' '), /--setenv HTTPS_PROXY http:\/\/127\.0\.0\.1:3128/);
    assert.ok(!withProxy.includes('--disable-userns'));
  });
});
