// `npm test`: unit, integration, end-to-end and fault tests in one vitest run (vitest.config.ts), so
// the output ends with one total and the exit code says whether anything failed.
// Usage: npm test [-- <path-prefix>...]   e.g. `npm test -- core/kernel test/e2e`
import { spawnSync } from 'node:child_process';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const filters = process.argv.slice(2).map((p) => p.replace(/^\.\//, ''));

// Plain text when piped, as node:test's spec reporter printed (tinyrainbow colours unless told).
if (!process.stdout.isTTY && !('FORCE_COLOR' in process.env)) process.env.FORCE_TTY = 'false';
// Workers get NODE_ENV=test from vitest; vitest-setup.ts puts back what the caller had.
process.env.SVC_TEST_NODE_ENV = process.env.NODE_ENV ?? '';
const { createVitest } = await import('vitest/node');
const vitest = await createVitest('test', { root, watch: false, reporters: ['verbose'] });

// Path prefixes, not vitest's substring filters: `cli` must not pick test/integration/client-*.
const specs = (await vitest.globTestSpecifications())
  .filter((s) => filters.length === 0 || filters.some((prefix) => relative(root, s.moduleId).startsWith(prefix)))
  .sort((a, b) => a.moduleId.localeCompare(b.moduleId));
const files = specs.map((s) => relative(root, s.moduleId));

if (files.length === 0) {
  process.stderr.write(`test: no test files match ${filters.join(' ') || 'the default patterns'}\n`);
  await vitest.close();
  process.exit(1);
}

// The run_code sandbox needs bubblewrap: installed here when missing (root + apt-get), else a clear failure.
if (spawnSync(join(root, 'scripts/ensure-bwrap.sh'), { stdio: 'inherit' }).status !== 0) process.exit(1);

// End-to-end and fault tests run the built binary: build it when any input is newer than dist/svc.
if (files.some((f) => f.startsWith('test/e2e/') || f.startsWith('test/fault/'))) {
  const build = spawnSync(process.execPath, [join(root, 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// Two phases (the config's projects): everything but the fault tests two files at a time, then the
// fault tests one at a time and after everything else: they kill processes, saturate the CPU and
// restart a PostgreSQL server of their own, which would disturb tests running beside them.
await vitest.standalone();
const { testModules, unhandledErrors } = await vitest.runTestSpecifications(specs, filters.length === 0);
await vitest.close();

// As node:test counted: a test skipped because its suite's hook failed is a failure, and a file
// that fails outside any test (import, top-level hook) counts once.
const suiteFailed = (t) => t.parent.type !== 'module' && (t.parent.state() === 'failed' || suiteFailed(t.parent));
let passed = 0;
let failed = unhandledErrors.length;
for (const mod of testModules) {
  let failedHere = 0;
  for (const test of mod.children.allTests()) {
    const state = test.result().state;
    if (state === 'passed') passed++;
    else if (state === 'failed' || (state === 'skipped' && suiteFailed(test))) failedHere++;
  }
  failed += failedHere || (mod.state() === 'failed' ? 1 : 0);
}
process.stdout.write(`\nall: ${passed} passed, ${failed} failed\n`);
process.exit(failed > 0 ? 1 : 0);
