import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, test } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../kernel/log.ts';
import { FileLockElector } from './leader-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function logger() {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, log: createLogger('debug', (l) => lines.push(JSON.parse(l) as Record<string, unknown>)) };
}

/** An elector plus the leadership changes it reported, with timestamps. */
function elector(path: string, o: { staleMs?: number; updateMs?: number; retryMs?: number } = {}) {
  const { lines, log } = logger();
  const e = new FileLockElector({ path, log, staleMs: 2000, updateMs: 1000, retryMs: 100, ...o });
  const changes: Array<{ leader: boolean; at: number }> = [];
  e.start((leader) => changes.push({ leader, at: Date.now() }));
  return { e, changes, lines };
}

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

describe('file-lock elector', () => {
  test('exactly one of two leads; a clean stop hands over at the next retry', async () => {
    const path = join(dir, 'a', 'scheduler.lock'); // parent created on demand
    const a = elector(path);
    await until(() => a.e.isLeader(), 2000, 'a to lead');
    const b = elector(path);
    await sleep(400);
    assert.equal(b.e.isLeader(), false);
    assert.equal(b.changes.length, 0);
    const stoppedAt = Date.now();
    await a.e.stop();
    // No assertion on the lock directory here: b's 100 ms retry may already have re-created it.
    await until(() => b.e.isLeader(), 1500, 'b to take over');
    // Well under staleMs (2000): b took a released lock rather than waiting for a stale one. The
    // margin over one retry interval absorbs a loaded CI machine.
    const tookMs = b.changes[0]!.at - stoppedAt;
    assert.ok(tookMs < 1000, `taken over ${tookMs} ms after the stop`);
    assert.deepEqual(a.changes.map((c) => c.leader), [true, false]);
    await b.e.stop();
  });

  test('a clean stop removes the lock directory', async () => {
    const path = join(dir, 'clean.lock');
    const a = elector(path);
    await until(() => a.e.isLeader(), 2000, 'a to lead');
    assert.equal(existsSync(path), true);
    await a.e.stop();
    assert.equal(existsSync(path), false, 'the lock is released on stop');
    assert.deepEqual(a.changes.map((c) => c.leader), [true, false]);
  });

  test('a lock left by a dead holder is taken over once stale, not before', async () => {
    const path = join(dir, 'dead.lock');
    mkdirSync(path); // what a kill -9'd holder leaves behind, last refreshed just now
    const refreshed = statSync(path).mtimeMs;
    const b = elector(path);
    await sleep(1500);
    assert.equal(b.e.isLeader(), false, 'fresh lock: still held');
    await until(() => b.e.isLeader(), 2000, 'takeover after the stale period');
    const age = b.changes[0]!.at - refreshed;
    assert.ok(age >= 2000 && age < 2000 + 1000, `taken over ${age} ms after the holder's last refresh`);
    await b.e.stop();
  });

  test('compromised (another process took the lock over): steps down at once without throwing, and stays down while the other holds it', async () => {
    const path = join(dir, 'compromised.lock');
    const a = elector(path);
    await until(() => a.e.isLeader(), 2000, 'a to lead');
    // Another process that judged the lock stale re-created it: the mtime is no longer ours.
    const t = new Date(Date.now() + 60_000);
    utimesSync(path, t, t);
    await until(() => !a.e.isLeader(), 2500, 'a to step down at its next refresh');
    assert.ok(a.lines.some((l) => l.level === 'error' && /compromised; stepping down/.test(String(l.msg))));
    await sleep(500);
    assert.equal(a.e.isLeader(), false, 'the lock is fresh (the other holder): no re-acquire');
    // The other holder goes away: a campaigns again and wins.
    rmSync(path, { recursive: true });
    await until(() => a.e.isLeader(), 1000, 'a to lead again');
    assert.deepEqual(a.changes.map((c) => c.leader), [true, false, true]);
    await a.e.stop();
  });

  test('lock removed under the holder: steps down, then re-acquires', async () => {
    const path = join(dir, 'removed.lock');
    const a = elector(path);
    await until(() => a.e.isLeader(), 2000, 'a to lead');
    rmSync(path, { recursive: true });
    await until(() => a.changes.length >= 3, 3000, 'step down and re-acquire');
    assert.deepEqual(a.changes.map((c) => c.leader), [true, false, true]);
    await a.e.stop();
  });

  test('an unusable path is reported once and retried, never thrown', async () => {
    // A regular file where the parent directory should be.
    const blocker = join(dir, 'file-not-dir');
    writeFileSync(blocker, 'x');
    const path = join(blocker, 'x', 'scheduler.lock');
    const a = elector(path);
    await until(() => a.lines.some((l) => l.level === 'warn'), 3000, 'the first warning');
    await sleep(400); // several more 100 ms retries fail the same way
    assert.equal(a.e.isLeader(), false);
    const warns = a.lines.filter((l) => l.level === 'warn');
    assert.equal(warns.length, 1, 'one warning for a repeated error');
    await a.e.stop();
  });
});
