import { test } from 'vitest';
import assert from 'node:assert/strict';
import { loadConfigOrExplain, onStopSignals, problemsText } from './command.ts';

test('configuration problems print in one style, exit code 1', () => {
  let err = '';
  const before = process.exitCode;
  const loaded = loadConfigOrExplain('svc invite list', { env: { PORT: 'eighty' }, stderr: (t) => void (err += t) }, ', not starting');
  assert.equal(loaded, undefined);
  assert.equal(process.exitCode, 1);
  process.exitCode = before;
  assert.match(err, /^svc invite list: invalid configuration, not starting:\n {2}- PORT: /);
  assert.equal(problemsText('svc', ['a', 'b']), 'svc: invalid configuration:\n  - a\n  - b\n');
});

test('the first signal stops then exits 0; a second exits at once with 128+signo', async () => {
  const codes: number[] = [];
  let release!: () => void;
  const stopped = new Promise<void>((r) => (release = r));
  const listeners = { SIGTERM: process.listeners('SIGTERM'), SIGINT: process.listeners('SIGINT') };
  onStopSignals(() => stopped, { exit: (c) => void codes.push(c) });
  try {
    process.emit('SIGTERM', 'SIGTERM');
    process.emit('SIGINT', 'SIGINT');
    assert.deepEqual(codes, [130]);
    release();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(codes, [130, 0]);
  } finally {
    for (const s of ['SIGTERM', 'SIGINT'] as const) {
      for (const l of process.listeners(s)) if (!listeners[s].includes(l)) process.off(s, l);
    }
  }
});
