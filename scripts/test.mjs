// `npm test`: every kind of test in one vitest run, so one total and one exit code.
// Usage: npm test [-- <path-prefix>...]   e.g. `npm test -- core/kernel test/e2e`
import { spawnSync } from 'node:child_process';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const filters = process.argv.slice(2).map((p) => p.replace(/^\.\//, ''));

// Plain text when piped: tinyrainbow colours unless told not to.
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

// run_code needs bubblewrap: installed when missing (root), else a clear failure.
if (spawnSync(join(root, 'scripts/ensure-bwrap.sh'), { stdio: 'inherit' }).status !== 0) process.exit(1);

// End-to-end and fault tests run the built binary.
if (files.some((f) => f.startsWith('test/e2e/') || f.startsWith('test/fault/'))) {
  const build = spawnSync(process.execPath, [join(root, 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// Fault tests run last and alone: they kill processes, saturate the CPU, restart PostgreSQL.
await vitest.standalone();
const { testModules, unhandledErrors } = await vitest.runTestSpecifications(specs, filters.length === 0);
await vitest.close();

// As node:test counted: a skip from a failed hook fails; a broken file counts once.
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
