// Preloaded by tail.mjs: every GC pause to $GC_LOG_PREFIX.<pid>.json, to match slow requests.
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { writeFileSync } from 'node:fs';

const pauses = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) pauses.push([performance.timeOrigin + e.startTime, e.duration, e.detail?.kind]);
}).observe({ entryTypes: ['gc'] });
const flush = () => writeFileSync(`${process.env.GC_LOG_PREFIX}.${process.pid}.json`, JSON.stringify(pauses));
process.on('exit', flush);
// Without a SIGTERM handler (the fake, the bare proxy) there is no 'exit'.
for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => {
    flush();
    if (process.listenerCount(sig) === 1) process.exit(0);
  });
}
