import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { CronError, cronProblem, parseCron } from './cron.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** Every firing minute in [from, to), as ISO strings (brute force, the reference for next()). */
function firings(expr: string, from: string, to: string): string[] {
  const c = parseCron(expr);
  const out: string[] = [];
  for (let t = at(from); t < at(to); t += 60_000) if (c.matches(t)) out.push(iso(t)!);
  return out;
}

describe('cron: parsing', () => {
  test('every minute, and seconds within a minute do not matter', () => {
    const c = parseCron('* * * * *');
    assert.ok(c.matches(at('2026-03-04T05:06:00Z')));
    assert.ok(c.matches(at('2026-03-04T05:06:59.999Z')));
  });

  test('values, lists, ranges and steps', () => {
    assert.deepEqual(firings('5,10-12 * * * *', '2026-01-01T00:00:00Z', '2026-01-01T00:15:00Z'), [
      '2026-01-01T00:05:00.000Z',
      '2026-01-01T00:10:00.000Z',
      '2026-01-01T00:11:00.000Z',
      '2026-01-01T00:12:00.000Z',
    ]);
    assert.deepEqual(
      firings('*/20 * * * *', '2026-01-01T00:00:00Z', '2026-01-01T01:00:00Z').map((s) => s.slice(14, 16)),
      ['00', '20', '40'],
    );
    assert.deepEqual(
      firings('10-30/10 * * * *', '2026-01-01T00:00:00Z', '2026-01-01T01:00:00Z').map((s) => s.slice(14, 16)),
      ['10', '20', '30'],
    );
    // a/n: from a to the field's maximum.
    assert.deepEqual(
      firings('45/5 * * * *', '2026-01-01T00:00:00Z', '2026-01-01T01:00:00Z').map((s) => s.slice(14, 16)),
      ['45', '50', '55'],
    );
  });

  test('hours and a daily schedule', () => {
    assert.deepEqual(firings('30 9,17 * * *', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z'), ['2026-01-01T09:30:00.000Z', '2026-01-01T17:30:00.000Z']);
  });

  test('month and weekday names; 7 is Sunday too', () => {
    // 2026-01-04 is a Sunday.
    const sun = at('2026-01-04T00:00:00Z');
    assert.ok(parseCron('0 0 * * SUN').matches(sun));
    assert.ok(parseCron('0 0 * * 7').matches(sun));
    assert.ok(parseCron('0 0 * * 0').matches(sun));
    assert.ok(parseCron('0 0 * * mon-sat').matches(sun) === false);
    assert.ok(parseCron('0 0 * JAN *').matches(sun));
    assert.ok(!parseCron('0 0 * feb-dec *').matches(sun));
  });

  test('both day fields restricted: either matches (Vixie semantics); one starred: both must', () => {
    // The 1st of the month, or any Monday. 2026-01-05 is a Monday, 2026-01-06 a Tuesday.
    const c = parseCron('0 0 1 * MON');
    assert.ok(c.matches(at('2026-01-01T00:00:00Z')), 'the 1st (a Thursday)');
    assert.ok(c.matches(at('2026-01-05T00:00:00Z')), 'a Monday');
    assert.ok(!c.matches(at('2026-01-06T00:00:00Z')));
    // Starred day-of-week (even with a step: */2 → Sun, Tue, Thu, Sat) means AND.
    const d = parseCron('0 0 1 * */2');
    assert.ok(d.matches(at('2026-01-01T00:00:00Z')), 'the 1st and a Thursday');
    assert.ok(!d.matches(at('2026-05-01T00:00:00Z')), 'the 1st but a Friday');
    assert.ok(!d.matches(at('2026-01-03T00:00:00Z')), 'a Saturday but not the 1st');
  });

  test('macros', () => {
    assert.equal(parseCron('@hourly').matches(at('2026-01-01T07:00:00Z')), true);
    assert.equal(parseCron('@hourly').matches(at('2026-01-01T07:01:00Z')), false);
    assert.equal(parseCron('@daily').matches(at('2026-05-06T00:00:00Z')), true);
    assert.equal(parseCron('@weekly').matches(at('2026-01-04T00:00:00Z')), true);
    assert.equal(parseCron('@monthly').matches(at('2026-07-01T00:00:00Z')), true);
    assert.equal(parseCron('@yearly').matches(at('2027-01-01T00:00:00Z')), true);
    assert.equal(parseCron('@YEARLY').matches(at('2027-01-02T00:00:00Z')), false);
  });

  test('surrounding and repeated whitespace is accepted', () => {
    assert.ok(parseCron('  0   12\t* * *  ').matches(at('2026-01-01T12:00:00Z')));
  });
});

describe('cron: errors name the field and the problem', () => {
  const cases: Array<[string, RegExp]> = [
    ['', /expected 5 fields/],
    ['* * * *', /expected 5 fields .* got 4/],
    ['* * * * * *', /got 6/],
    ['60 * * * *', /minute field "60": 60 is out of range 0-59/],
    ['* 24 * * *', /hour field "24": 24 is out of range 0-23/],
    ['* * 0 * *', /day-of-month field "0": 0 is out of range 1-31/],
    ['* * * 13 *', /month field "13": 13 is out of range 1-12/],
    ['* * * * 8', /day-of-week field "8": 8 is out of range 0-7/],
    ['*/0 * * * *', /step 0 must be from 1 to 59/],
    ['*/x * * * *', /step "x" is not a positive integer/],
    ['*/ * * * *', /step "" is not a positive integer/],
    ['1/2/3 * * * *', /more than one "\/"/],
    ['30-10 * * * *', /range 30-10 runs backwards/],
    ['1-2-3 * * * *', /not a value or a range/],
    ['a * * * *', /"a" is not a number/],
    ['* * * FOO *', /"FOO" is not a number or a name/],
    ['1,,2 * * * *', /empty list item/],
    ['-1 * * * *', /"" is not a number/],
    ['1.5 * * * *', /"1.5" is not a number/],
    ['@reboot', /unknown macro @reboot/],
    ['0 0 30 2 *', /never occurs/],
    ['0 0 31 4,6,9,11 *', /never occurs/],
  ];
  for (const [expr, re] of cases) {
    test(JSON.stringify(expr), () => {
      assert.throws(() => parseCron(expr), (err: unknown) => err instanceof CronError && re.test(err.message) && err.message.includes(JSON.stringify(expr)));
      assert.match(cronProblem(expr)!, re);
    });
  }

  test('valid schedules have no problem; Feb 29 is valid (it happens)', () => {
    assert.equal(cronProblem('0 0 29 2 *'), undefined);
    assert.equal(cronProblem('0 0 31 * *'), undefined);
    assert.equal(cronProblem('0 0 30 2 MON'), undefined, 'day-of-week fires anyway (OR)');
  });
});

describe('cron: latestIn and next', () => {
  test('latestIn picks the most recent firing in (after, upTo], minute-aligned', () => {
    const c = parseCron('*/15 * * * *');
    assert.equal(iso(c.latestIn(at('2026-01-01T00:00:00Z'), at('2026-01-01T00:47:30Z'))), '2026-01-01T00:45:00.000Z');
    // upTo inclusive, after exclusive.
    assert.equal(iso(c.latestIn(at('2026-01-01T00:29:00Z'), at('2026-01-01T00:30:00Z'))), '2026-01-01T00:30:00.000Z');
    assert.equal(c.latestIn(at('2026-01-01T00:30:00Z'), at('2026-01-01T00:44:59Z')), undefined);
  });

  test('next agrees with brute force over a year for assorted schedules', () => {
    const exprs = ['* * * * *', '*/7 3 * * *', '0 0 1 * MON', '15 10 29 2 *', '0 12 * 3-5 fri', '59 23 31 12 *', '@weekly'];
    for (const expr of exprs) {
      const c = parseCron(expr);
      let t = at('2025-12-31T23:30:00Z');
      for (let i = 0; i < 12; i++) {
        const n = c.next(t)!;
        assert.ok(n > t && c.matches(n), `${expr}: ${iso(n)} after ${iso(t)}`);
        // Nothing fires in between (checked minute by minute, capped to keep the test fast).
        const gapEnd = Math.min(n, t + 3 * 24 * 3_600_000);
        for (let m = Math.floor(t / 60_000) * 60_000 + 60_000; m < gapEnd; m += 60_000) assert.ok(!c.matches(m), `${expr}: missed ${iso(m)}`);
        t = n;
      }
    }
  });

  test('next finds a Feb 29 two years away', () => {
    assert.equal(iso(parseCron('0 0 29 2 *').next(at('2026-03-01T00:00:00Z'))), '2028-02-29T00:00:00.000Z');
  });
});
