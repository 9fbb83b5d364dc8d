// Preloaded by alloc.bench.mjs; keeps objects that die young, which the default drops.
// SIGUSR2 starts sampling; a second writes the profile to $HEAP_SAMPLE_OUT.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

const session = new Session();
session.connect();
let sampling = false;
process.on('SIGUSR2', async () => {
  if (!sampling) {
    sampling = true;
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    process.stderr.write('heap-sampler: started\n');
    return;
  }
  const { profile } = await session.post('HeapProfiler.stopSampling');
  writeFileSync(process.env.HEAP_SAMPLE_OUT, JSON.stringify(profile));
  process.stderr.write('heap-sampler: written\n');
});
