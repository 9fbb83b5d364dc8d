// `npm test`: unit, integration and end-to-end tests in one `node --test` run, so the output ends with
// one summary (ℹ tests / pass / fail) and the exit code is the runner's.
// Usage: npm test [-- <path-prefix>...]   e.g. `npm test -- core/config test/e2e`
import { spawnSync } from 'node:child_process';
import { globSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PATTERNS = [
  'core/**/*.test.ts',
  'daemon/**/*.test.ts',
  'cli/**/*.test.ts',
  'test/integration/**/*.test.ts',
  'test/e2e/**/*.test.ts',
  // Fault tests: real svc processes killed and starved (SVC_FAULT_FULL=1 for the sizes).
  'test/fault/**/*.test.ts',
];

const filters = process.argv.slice(2);
const files = PATTERNS.flatMap((p) => globSync(p, { cwd: root }))
  .filter((f) => !f.split('/').includes('node_modules'))
  .filter((f) => filters.length === 0 || filters.some((prefix) => f.startsWith(prefix.replace(/^\.\//, ''))))
  .sort();

if (files.length === 0) {
  process.stderr.write(`test: no test files match ${filters.join(' ') || 'the default patterns'}\n`);
  process.exit(1);
}

// The run_code sandbox needs bubblewrap: installed here when missing (root + apt-get), else a clear failure.
if (spawnSync(join(root, 'scripts/ensure-bwrap.sh'), { stdio: 'inherit' }).status !== 0) process.exit(1);

// End-to-end and fault tests run the built binary: build it when any input is newer than dist/svc.
if (files.some((f) => f.startsWith('test/e2e/') || f.startsWith('test/fault/'))) {
  const build = spawnSync(process.execPath, [join(root, 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// Two phases. First everything but the fault tests, two files at a time (2 cores; most files wait
// on I/O). Then the fault tests, one at a time and after everything else: they kill processes,
// saturate the CPU and restart a PostgreSQL server of their own, which would disturb tests running beside
// them. Each phase prints the runner's summary; a last line totals both.
const faults = files.filter((f) => f.startsWith('test/fault/'));
const rest = files.filter((f) => !f.startsWith('test/fault/'));
const totals = { tests: 0, pass: 0, fail: 0 };
let status = 0;
for (const [group, concurrency] of [[rest, process.env.SVC_TEST_CONCURRENCY ?? 2], [faults, 1]]) {
  if (group.length === 0) continue;
  const tap = join(mkdtempSync(join(tmpdir(), 'svc-test-')), 'report.tap');
  const args = [
    '--test',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=tap',
    `--test-reporter-destination=${tap}`,
    `--test-concurrency=${concurrency}`,
    // A hung test fails after 3 minutes instead of stalling CI.
    '--test-timeout=180000',
    ...group,
  ];
  const run = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) status = run.status ?? 1;
  const report = readFileSync(tap, 'utf8');
  for (const k of Object.keys(totals)) totals[k] += Number(new RegExp(`^# ${k} (\\d+)$`, 'm').exec(report)?.[1] ?? 0);
}
process.stdout.write(`\nall: ${totals.pass} passed, ${totals.fail} failed\n`);
process.exit(status);
