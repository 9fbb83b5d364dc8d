import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { createLogger } from './log.ts';

function capture(level: Parameters<typeof createLogger>[0] = 'debug') {
  const lines: string[] = [];
  return { lines, log: createLogger(level, (l) => lines.push(l)) };
}

describe('log', () => {
  it('one JSON object per line: time, level, msg, then base and fields', () => {
    const { lines, log } = capture();
    log.child({ component: 'store' }).info('request', { status: 200, durationMs: 1.25, route: '/x' });
    assert.equal(lines.length, 1);
    assert.ok(lines[0]!.endsWith('}\n'));
    const o = JSON.parse(lines[0]!);
    assert.deepEqual(Object.keys(o), ['time', 'level', 'msg', 'component', 'status', 'durationMs', 'route']);
    assert.equal(o.level, 'info');
    assert.equal(o.durationMs, 1.25);
    assert.ok(!Number.isNaN(Date.parse(o.time)));
  });

  it('an Error, at the top or nested, keeps its name, message and stack', () => {
    const { lines, log } = capture();
    const err = new TypeError('bad thing');
    log.error('failed', { error: err });
    log.warn('failed', { detail: { cause: new RangeError('deep') }, n: 1 });
    const top = JSON.parse(lines[0]!).error;
    assert.equal(top.name, 'TypeError');
    assert.equal(top.message, 'bad thing');
    assert.match(top.stack, /bad thing/);
    assert.deepEqual(Object.keys(JSON.parse(lines[1]!).detail.cause), ['name', 'message', 'stack']);
    assert.equal(JSON.parse(lines[1]!).detail.cause.message, 'deep');
  });

  it('levels below the threshold write nothing', () => {
    const { lines, log } = capture('warn');
    log.debug('a');
    log.info('b');
    log.warn('c');
    assert.deepEqual(lines.map((l) => JSON.parse(l).msg), ['c']);
  });
});
