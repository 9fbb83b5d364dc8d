import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { classify, type Facts } from './classify.ts';
import { Capped, type ExecOutcome } from './execute.ts';
import type { Enforcement, SandboxLimits } from './types.ts';

const limits: SandboxLimits = { timeoutMs: 2000, cpuSeconds: 1, memoryMb: 64, maxProcesses: 32, tmpMb: 8, network: 'none', allowedHosts: [], allowPrivate: false };
const cgroups: Enforcement = { memory: 'cgroup v1', processes: 'cgroup v1', cpu: 'RLIMIT_CPU', storage: 'tmpfs', network: 'loopback only' };
const rlimits: Enforcement = { ...cgroups, memory: 'RLIMIT_DATA', processes: 'RLIMIT_NPROC' };
const none: Facts = { oomKilled: false, pidsLimitHit: false, cpuSeconds: 0, proxyRefusals: 0 };

function outcome(o: Partial<ExecOutcome> & { err?: string }): ExecOutcome {
  const stderr = new Capped();
  if (o.err) stderr.add(Buffer.from(o.err));
  return { status: 0, signal: null, timedOut: false, stdout: new Capped(), stderr, report: undefined, started: true, durationMs: 5, aborted: false, ...o };
}
const limitOf = (o: Partial<ExecOutcome> & { err?: string }, f: Partial<Facts> = {}, e = cgroups) => classify(outcome(o), { ...none, ...f }, limits, e).limit;

describe('classify', () => {
  it('a clean exit names no limit, whatever the counters say', () => {
    assert.equal(limitOf({ status: 0 }, { oomKilled: true, pidsLimitHit: true }), null);
    assert.equal(limitOf({ status: 2, err: 'TypeError: x is not a function' }), null);
  });
  it('kernel evidence: pids.max refusal, the OOM killer, SIGXCPU (bwrap: 128+24), the wall clock', () => {
    assert.equal(limitOf({ status: 137 }, { pidsLimitHit: true, oomKilled: true }), 'processes');
    assert.equal(limitOf({ status: 137 }, { oomKilled: true }), 'memory');
    assert.equal(limitOf({ status: 152 }), 'cpu');
    assert.equal(limitOf({ status: 137 }, { cpuSeconds: 1.02 }), 'cpu', 'SIGKILL at the hard CPU limit');
    assert.equal(limitOf({ status: 137 }, { cpuSeconds: 0.2 }), null, 'a SIGKILL the program sent itself');
    assert.equal(limitOf({ status: null, signal: 'SIGKILL', timedOut: true }), 'time');
    assert.equal(limitOf({ status: 1, report: { files: [], filesTruncated: false, storageFull: true, childSignal: null } }), 'storage');
    assert.equal(limitOf({ status: 1, report: { files: [], filesTruncated: false, storageFull: false, childSignal: 'SIGXCPU' } }), 'cpu');
  });
  it('rlimit fallbacks read the error the program got', () => {
    assert.equal(limitOf({ status: 1, err: 'RangeError: Array buffer allocation failed' }, {}, rlimits), 'memory');
    assert.equal(limitOf({ status: 1, err: 'BlockingIOError: [Errno 11] Resource temporarily unavailable' }, {}, rlimits), 'processes');
    assert.equal(limitOf({ status: 1, err: 'RangeError: Array buffer allocation failed' }, {}, cgroups), null, 'with cgroups only kernel evidence counts');
  });
  it('storage and network errors', () => {
    assert.equal(limitOf({ status: 1, err: "Error: ENOSPC: no space left on device, write" }), 'storage');
    assert.equal(limitOf({ status: 1, err: 'connect ECONNREFUSED 127.0.0.1:5432' }), 'network');
    assert.equal(limitOf({ status: 1, err: 'connect ENETUNREACH 1.1.1.1:80' }), 'network');
    assert.equal(limitOf({ status: 1 }, { proxyRefusals: 1 }), 'network');
  });
  it('exit codes follow the shell convention and stderr ends with a note naming the limit', () => {
    const r = classify(outcome({ status: null, signal: 'SIGKILL', timedOut: true, err: 'partial' }), none, limits, cgroups);
    assert.equal(r.exitCode, 137);
    assert.equal(r.stderr, 'partial\n[sandbox] stopped: the wall-clock limit of 2000 ms was reached; every process was killed');
    const sig = classify(outcome({ status: 134 }), none, limits, cgroups);
    assert.equal(sig.stderr, '\n[sandbox] the program was ended by SIGABRT');
  });
});
