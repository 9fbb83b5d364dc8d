import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { test } from 'vitest';
import { systemd } from './systemd.ts';
import { serveUnit, workerUnit, UNIT_DEFAULTS } from './systemd-units.ts';

/** `Key=value` lines of one section, in order (repeated keys kept). */
function section(unit: string, name: string): Array<[string, string]> {
  const body = unit.split(/^\[/m).find((s) => s.startsWith(`${name}]`))!;
  return body
    .split('\n')
    .slice(1)
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as [string, string]);
}
const get = (kv: Array<[string, string]>, k: string) => kv.filter(([key]) => key === k).map(([, v]) => v);

test('units: ExecStart, restart policy, stop timeout above the worker\'s, environment file, hardening', () => {
  const o = { ...UNIT_DEFAULTS, bin: '/opt/svc/bin/svc' };
  const serve = section(serveUnit(o), 'Service');
  const worker = section(workerUnit(o), 'Service');
  assert.deepEqual(get(serve, 'ExecStart'), ['/opt/svc/bin/svc serve']);
  assert.deepEqual(get(worker, 'ExecStart'), ['/opt/svc/bin/svc worker --stop-timeout 30000']);
  for (const kv of [serve, worker]) {
    assert.deepEqual(get(kv, 'Restart'), ['always']);
    assert.ok(Number(get(kv, 'RestartSec')[0]) > 0);
    assert.deepEqual(get(kv, 'KillSignal'), ['SIGTERM']);
    assert.deepEqual(get(kv, 'EnvironmentFile'), ['/etc/svc/svc.env']);
    assert.deepEqual(get(kv, 'User'), ['svc']);
    assert.deepEqual(get(kv, 'NoNewPrivileges'), ['true']);
    assert.deepEqual(get(kv, 'ProtectSystem'), ['strict']);
    assert.deepEqual(get(kv, 'ReadWritePaths'), ['/var/lib/svc']);
    assert.deepEqual(get(kv, 'PrivateTmp'), ['true']);
    assert.ok(get(kv, 'Environment').includes('SERVICE_DB_PATH=/var/lib/svc/svc.db'));
    // Environment= defaults come before the file, which overrides them.
    assert.ok(kv.findIndex(([k]) => k === 'Environment') < kv.findIndex(([k]) => k === 'EnvironmentFile'));
  }
  assert.ok(Number(get(worker, 'TimeoutStopSec')[0]) > 30, 'systemd waits longer than the worker\'s stop timeout');
  assert.ok(Number(section(workerUnit({ ...o, workerStopTimeoutMs: 120_000 }), 'Service').find(([k]) => k === 'TimeoutStopSec')![1]) > 120);
  assert.match(workerUnit(o), /Description=.*%i/, 'a template: svc-worker@1, @2 …');
  assert.deepEqual(get(section(serveUnit(o), 'Install'), 'WantedBy'), ['multi-user.target']);
});

test('svc systemd --dir writes both files; bad options are refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-units-'));
  try {
    const write = process.stdout.write;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    try {
      await systemd({ dir: join(dir, 'units'), bin: '/usr/bin/svc', user: 'svcuser', envFile: '/etc/x/svc.env', dataDir: '/srv/svc' });
    } finally {
      process.stdout.write = write;
    }
    const serve = readFileSync(join(dir, 'units', 'svc.service'), 'utf8');
    const worker = readFileSync(join(dir, 'units', 'svc-worker@.service'), 'utf8');
    assert.match(serve, /^User=svcuser$/m);
    assert.match(worker, /^EnvironmentFile=\/etc\/x\/svc.env$/m);
    assert.match(worker, /^ReadWritePaths=\/srv\/svc$/m);
    await assert.rejects(systemd({ bin: 'svc' }), /absolute/);
    await assert.rejects(systemd({ bin: '/b', user: 'a b' }), /user/);
    await assert.rejects(systemd({ bin: '/b', dataDir: 'rel' }), /data-dir/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// With systemd-analyze (this machine has it) the units are verified by systemd itself; without it
// a built-in check of the same kind runs instead — every directive must be one systemd knows in
// that section — so the test means something on every machine and is never skipped.
const analyze = spawnSync('systemd-analyze', ['--version']).status === 0;
const KNOWN: Record<string, ReadonlySet<string>> = {
  Unit: new Set(['Description', 'Documentation', 'After', 'Before', 'Wants', 'Requires', 'BindsTo', 'PartOf', 'StartLimitIntervalSec', 'StartLimitBurst', 'ConditionPathExists']),
  Service: new Set([
    'Type', 'User', 'Group', 'ExecStart', 'ExecReload', 'ExecStop', 'Restart', 'RestartSec', 'KillSignal', 'KillMode', 'TimeoutStopSec', 'TimeoutStartSec',
    'EnvironmentFile', 'Environment', 'WorkingDirectory', 'NoNewPrivileges', 'ProtectSystem', 'ProtectHome', 'ReadWritePaths', 'PrivateTmp',
    'PrivateDevices', 'ProtectKernelTunables', 'ProtectKernelModules', 'ProtectControlGroups', 'RestrictSUIDSGID', 'LockPersonality', 'LimitNOFILE',
    'StateDirectory', 'RuntimeDirectory', 'SyslogIdentifier', 'StandardOutput', 'StandardError', 'UMask', 'RestrictRealtime', 'RestrictNamespaces',
    'SystemCallArchitectures', 'MemoryDenyWriteExecute', 'CapabilityBoundingSet', 'AmbientCapabilities', 'DynamicUser', 'SuccessExitStatus',
  ]),
  Install: new Set(['WantedBy', 'RequiredBy', 'Alias', 'Also', 'DefaultInstance']),
};
function unknownDirectives(unit: string): string[] {
  let section = '';
  const bad: string[] = [];
  for (const line of unit.split('\n')) {
    const t = line.trim();
    if (t === '' || t.startsWith('#') || t.startsWith(';')) continue;
    const sec = /^\[(\w+)\]$/.exec(t);
    if (sec) {
      section = sec[1]!;
      if (!KNOWN[section]) bad.push(`[${section}]`);
      continue;
    }
    const key = t.split('=', 1)[0]!;
    if (!KNOWN[section]?.has(key)) bad.push(`${section}.${key}`);
  }
  return bad;
}

test(`units verify (${analyze ? 'systemd-analyze' : 'built-in directive check'}), and a typo is caught`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-verify-'));
  try {
    const bin = join(dir, 'svc');
    writeFileSync(bin, '#!/bin/sh\n');
    chmodSync(bin, 0o755);
    writeFileSync(join(dir, 'svc.env'), '');
    const o = { ...UNIT_DEFAULTS, bin, user: userInfo().username, envFile: join(dir, 'svc.env'), dataDir: dir };
    const typo = serveUnit(o).replace('KillSignal=SIGTERM', 'KillSignal=SIGTERM\nRestartt=always');
    if (!analyze) {
      assert.deepEqual(unknownDirectives(serveUnit(o)), []);
      assert.deepEqual(unknownDirectives(workerUnit(o)), []);
      assert.deepEqual(unknownDirectives(typo), ['Service.Restartt']);
      return;
    }
    writeFileSync(join(dir, 'svc.service'), serveUnit(o));
    writeFileSync(join(dir, 'svc-worker@.service'), workerUnit(o));
    copyFileSync(join(dir, 'svc-worker@.service'), join(dir, 'svc-worker@1.service'));
    const r = spawnSync('systemd-analyze', ['verify', join(dir, 'svc.service'), join(dir, 'svc-worker@1.service')], { encoding: 'utf8' });
    const ours = r.stderr.split('\n').filter((l) => l.includes(dir) && !/Special user|not safe/.test(l));
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(ours, []);
    // The check can fail: an unknown directive is reported.
    writeFileSync(join(dir, 'bad.service'), typo);
    const bad = spawnSync('systemd-analyze', ['verify', join(dir, 'bad.service')], { encoding: 'utf8' });
    assert.match(bad.stderr, /Restartt|Unknown key/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a binary the service user cannot reach (inside a 0700 directory) is reported', async () => {
  const { blockedForOthers } = await import('./systemd.ts');
  const dir = mkdtempSync(join(tmpdir(), 'svc-home-'));
  try {
    chmodSync(dir, 0o700);
    const bin = join(dir, 'svc');
    writeFileSync(bin, '');
    chmodSync(bin, 0o755);
    assert.equal(blockedForOthers(bin), dir);
    chmodSync(dir, 0o755);
    assert.equal(blockedForOthers(bin), undefined);
    chmodSync(bin, 0o700);
    assert.equal(blockedForOthers(bin), bin);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
