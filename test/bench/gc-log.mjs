// Preloaded (`--import`) by test/bench/tail.mjs into each server: records every GC pause as
// [wall-clock start in ms, duration in ms, kind] and writes them to $GC_LOG_PREFIX.<pid>.json on exit,
// so the tool can tell which slow requests a pause in which process overlapped.
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { writeFileSync } from 'node:fs';

const pauses = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) pauses.push([performance.timeOrigin + e.startTime, e.duration, e.detail?.kind]);
}).observe({ entryTypes: ['gc'] });
const flush = () => writeFileSync(`${process.env.GC_LOG_PREFIX}.${process.pid}.json`, JSON.stringify(pauses));
process.on('exit', flush);
// A server with no SIGTERM handler of its own (the fake, the bare proxy) would die without 'exit'.
for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => {
    flush();
    if (process.listenerCount(sig) === 1) process.exit(0);
  });
}
