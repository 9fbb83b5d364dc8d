// `npm run bench [-- <name>...]`: each *.bench.mjs exports `name`, `description` and `run()` → rows.
// `--strict` is off by default: figures on a shared 2-core machine are noisy.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './lib.mjs';

const args = process.argv.slice(2);
const strict = args.includes('--strict');
const wanted = args.filter((a) => !a.startsWith('--'));
const dir = join(repoRoot, 'test', 'bench');
const files = readdirSync(dir).filter((f) => f.endsWith('.bench.mjs')).sort();
const benches = [];
for (const f of files) benches.push(await import(pathToFileURL(join(dir, f)).href));
const selected = wanted.length ? benches.filter((b) => wanted.includes(b.name)) : benches;
if (selected.length === 0) {
  process.stderr.write(`bench: none selected; available: ${benches.map((b) => b.name).join(', ')}\n`);
  process.exit(1);
}

const build = spawnSync(process.execPath, [join(repoRoot, 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const table = [['bench', 'metric', 'svc', 'baseline', 'ratio', 'target', 'status']];
let missed = 0;
for (const b of selected) {
  process.stderr.write(`bench: ${b.name} (${b.description})…\n`);
  for (const row of await b.run()) {
    const ratio = row.baseline ? row.value / row.baseline : undefined;
    if (row.ok === false) missed++;
    table.push([
      b.name,
      row.metric,
      fmt(row.value),
      row.baseline === undefined ? '' : fmt(row.baseline),
      ratio === undefined ? '' : `${ratio.toFixed(2)}×`,
      row.target ?? '',
      (row.ok === undefined ? '' : row.ok ? 'ok' : 'MISS') + (row.note ? ` (${row.note})` : ''),
    ]);
  }
}
print(table);
process.stdout.write(`\nbaseline: the same measurement on a minimal node:http server (node ${process.version}).\n`);
if (strict && missed > 0) process.exit(1);

function fmt(n) {
  return n >= 100 ? n.toFixed(0) : n.toFixed(1);
}

function print(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (i >= 2 && i <= 4 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  process.stdout.write(`${line(rows[0])}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const r of rows.slice(1)) process.stdout.write(`${line(r)}\n`);
}
