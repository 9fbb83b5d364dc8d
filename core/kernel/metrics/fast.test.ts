import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { Counter, Histogram, Registry } from 'prom-client';
import { FastCounter, FastHistogram } from './fast.ts';

// The fast series must scrape exactly like prom-client's own metrics fed the same observations.
const buckets = [0.001, 0.01, 0.1, 1];
const observations: [string, string, number][] = [
  ['GET', '200', 0.0005], ['GET', '200', 0.001], ['GET', '200', 0.05], ['POST', '500', 3], ['GET', '200', 0.5], ['POST', '500', 0.002],
];

function pair() {
  const plain = new Registry();
  const fast = new Registry();
  const config = (registry: Registry) => ({ name: 'x_seconds', help: 'h', labelNames: ['method', 'status'] as const, registers: [registry] });
  return {
    plain, fast,
    pc: new Counter({ ...config(plain), name: 'x_total' }),
    fc: new FastCounter({ ...config(fast), name: 'x_total' }),
    ph: new Histogram({ ...config(plain), buckets }),
    fh: new FastHistogram({ ...config(fast), buckets }),
  };
}

describe('fast metrics', () => {
  it('scrape text is identical to prom-client fed the same observations', async () => {
    const m = pair();
    for (const [method, status, v] of observations) {
      const key = `${method} ${status}`;
      m.pc.inc({ method, status }, 2);
      m.fc.child(key, () => ({ method, status })).inc(2);
      m.ph.observe({ method, status }, v);
      m.fh.child(key, () => ({ method, status })).observe(v);
    }
    assert.equal(await m.fast.metrics(), await m.plain.metrics());
    // Scraping twice neither loses nor double-counts the pending counts.
    m.fc.child('GET 200', () => ({ method: 'GET', status: '200' })).inc();
    m.pc.inc({ method: 'GET', status: '200' });
    assert.equal(await m.fast.metrics(), await m.plain.metrics());
    assert.equal(await m.fast.metrics(), await m.plain.metrics());
  });
  it('get() (JSON) matches too', async () => {
    const m = pair();
    m.fh.child('a', () => ({ method: 'GET', status: '200' })).observe(0.02);
    m.ph.observe({ method: 'GET', status: '200' }, 0.02);
    assert.deepEqual(await m.fast.getMetricsAsJSON(), await m.plain.getMetricsAsJSON());
  });
  it('labels are built once per key; the same child comes back', () => {
    const m = pair();
    let built = 0;
    const labels = () => (built++, { method: 'GET', status: '200' });
    const a = m.fc.child('k', labels);
    const b = m.fc.child('k', labels);
    assert.equal(a, b);
    assert.equal(built, 1);
  });
});
