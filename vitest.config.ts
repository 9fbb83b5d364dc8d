// The suite: unit tests beside the code, integration (real SQLite file + PostgreSQL), end-to-end
// (the built binary) and fault tests. `npm test` (scripts/test.mjs) adds bwrap, build and totals.
import { defineConfig } from 'vitest/config';

// Fault tests kill processes and saturate the CPU: they run last, one file at a time.
const FAULT = ['test/fault/**/*.test.ts'];

export default defineConfig({
  test: {
    // Child processes, not threads: native addons, process.chdir and env changes stay per file.
    pool: 'forks',
    // A hung test or hook fails after 3 minutes instead of stalling CI.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Hooks run in the order written, as node:test ran them.
    sequence: { hooks: 'list' },
    setupFiles: ['test/helpers/vitest-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'svc',
          include: ['core/**/*.test.ts', 'daemon/**/*.test.ts', 'cli/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          // Two files at a time: two cores, and most files wait on I/O.
          maxWorkers: Number(process.env.SVC_TEST_CONCURRENCY ?? 2),
        },
      },
      {
        extends: true,
        test: { name: 'fault', include: FAULT, maxWorkers: 1, sequence: { groupOrder: 1, hooks: 'list' } },
      },
    ],
  },
});
