// dist/svc: esbuild bundle → SEA blob → postject into a stripped Node 24 binary.
// Usage: `scripts/n node build.mjs [--if-stale]` (skip when dist/svc is newer than every input).
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readMigrations } from './scripts/build/migrations.mjs';
import { newestInput } from './scripts/build/inputs.mjs';
import { requireBuiltins } from './scripts/build/builtins.mjs';
import { V8_FLAGS } from './scripts/v8-flags.mjs';
import { buildWebAssets } from './daemon/web/asset-build.ts';

const root = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const work = join(root, '.build');
const out = join(root, 'dist', 'svc');
const SENTINEL = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const BUNDLE = 'svc.mjs';
const ADDON = 'better_sqlite3.node';
// run_code's in-sandbox runner; sea-entry.cjs runs it without unpacking.
const RUNNER = 'sandbox-runner.cjs';
// A chunk per lazy subcommand: `svc serve` never parses ink/react (docs/performance.md).
const SPLIT = process.env.SVC_SPLIT !== '0';
// CommonJS dependencies need require(), which an ESM bundle lacks (see scripts/build/builtins.mjs).
const BANNER = "const require = globalThis.process.getBuiltinModule('node:module').createRequire(import.meta.url);";

const log = (msg) => process.stdout.write(`build: ${msg}\n`);

if (process.argv.includes('--if-stale') && !isStale()) {
  log('dist/svc is up to date');
  process.exit(0);
}
if (Number(process.versions.node.split('.')[0]) !== 24) {
  throw new Error(`build.mjs needs Node 24 (the binary embeds this Node); got ${process.version}. Run it via scripts/n.`);
}

const t0 = performance.now();
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
mkdirSync(dirname(out), { recursive: true });

const bundleDir = join(work, 'bundle');
const bundleFiles = await bundle(bundleDir);
const addonPath = findAddon();
const hasher = createHash('sha256');
for (const f of bundleFiles) hasher.update(f).update(readFileSync(join(bundleDir, f)));
const hash = hasher.update(readFileSync(addonPath)).digest('hex').slice(0, 16);
const blobPath = makeBlob(bundleDir, bundleFiles, addonPath, hash);
const size = makeExecutable(blobPath);
log(`dist/svc ${(size / 1e6).toFixed(1)} MB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

function isStale() {
  try {
    return statSync(out).mtimeMs < newestInput(root);
  } catch {
    return true;
  }
}

async function bundle(outdir) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const migrations = await readMigrations(root);
  // Carried inside the binary: no CDN.
  const webAssets = await buildWebAssets();
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    // Migrations inlined once here; a banner would repeat them in every chunk.
    stdin: {
      contents: [
        `export { main } from ${JSON.stringify(join(root, 'cli/main.ts'))};`,
        `globalThis.__SVC_MIGRATIONS__ = ${JSON.stringify(migrations)};`,
        `globalThis.__SVC_WEB_ASSETS__ = ${JSON.stringify(webAssets)};`,
      ].join('\n'),
      resolveDir: root,
      sourcefile: 'svc-entry.js',
      loader: 'js',
    },
    outdir,
    entryNames: BUNDLE.replace(/\.mjs$/, ''),
    chunkNames: 'chunk-[hash]',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    minify: true,
    splitting: SPLIT,
    jsx: 'automatic',
    legalComments: 'none',
    logLevel: 'warning',
    define: {
      __SVC_VERSION__: JSON.stringify(pkg.version),
    },
    // Only pg's opt-in native client requires it, at call time.
    external: ['pg-native'],
    plugins: [noInkDevtools(), promClientLazyExtras()],
    banner: { js: BANNER },
    metafile: true,
  });
  writeFileSync(join(work, 'meta.json'), JSON.stringify(result.metafile));
  const files = readdirSync(outdir).sort();
  let rewritten = 0;
  for (const f of files) {
    const { code, count } = requireBuiltins(readFileSync(join(outdir, f), 'utf8'), BANNER);
    writeFileSync(join(outdir, f), code);
    rewritten += count;
  }
  log(`${rewritten} builtin imports turned into require()`);
  const bytes = files.reduce((n, f) => n + statSync(join(outdir, f)).size, 0);
  log(`bundle ${(bytes / 1e6).toFixed(2)} MB in ${files.length} file(s), ${countMigrations(migrations)} migrations inlined`);
  return files;
}

/** Unsplit, ink's lazy devtools import would hoist react-devtools-core and ws into start-up. */
function noInkDevtools() {
  return { name: 'no-ink-devtools', setup };
  function setup(b) {
    b.onResolve({ filter: /^\.\/devtools\.js$/ }, (args) =>
      /[\\/]ink[\\/]build[\\/]/.test(args.importer) ? { path: 'ink-devtools', namespace: 'svc-empty' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'svc-empty' }, () => ({ contents: 'export {};', loader: 'js' }));
  }
}

/**
 * Unused Summary and Pushgateway load lazily: they cost every start (docs/performance.md).
 * Fails the build if prom-client's index.js changes shape.
 */
function promClientLazyExtras() {
  const LAZY = [['Summary', './lib/summary'], ['Pushgateway', './lib/pushgateway']];
  return { name: 'prom-client-lazy-extras', setup };
  function setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]prom-client[\\/]index\.js$/ }, (args) => {
      let src = readFileSync(args.path, 'utf8');
      for (const [name, mod] of LAZY) {
        const eager = `exports.${name} = require('${mod}');`;
        if (!src.includes(eager)) throw new Error(`prom-client/index.js: expected \`${eager}\` (update promClientLazyExtras in build.mjs)`);
        src = src.replace(eager, `Object.defineProperty(exports, '${name}', { enumerable: true, get: () => require('${mod}') });`);
      }
      return { contents: src, loader: 'js', resolveDir: dirname(args.path) };
    });
  }
}

function countMigrations(m) {
  return Object.values(m).reduce((n, list) => n + list.length, 0);
}

/** A compiled addon wins over the prebuild, as in better-sqlite3 itself. */
function findAddon() {
  const pkgDir = dirname(require.resolve('better-sqlite3/package.json'));
  for (const candidate of [
    join(pkgDir, 'build', 'Release', 'better_sqlite3.node'),
    join(pkgDir, 'prebuilds', `${process.platform}-${process.arch}.node`),
  ]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {}
  }
  throw new Error('better-sqlite3 native addon not found (run npm ci)');
}

function makeBlob(bundleDir, bundleFiles, addonPath, hash) {
  const template = readFileSync(join(root, 'scripts/build/sea-entry.cjs'), 'utf8');
  const build = { hash, entry: BUNDLE, files: bundleFiles, addon: ADDON, runner: RUNNER };
  const entry = template.replace(/\/\*BUILD\*\/ \{[^}]*\}/, JSON.stringify(build));
  if (entry === template) throw new Error('sea-entry.cjs: BUILD placeholder not found');
  writeFileSync(join(work, 'sea-entry.cjs'), entry);
  const config = {
    main: join(work, 'sea-entry.cjs'),
    output: join(work, 'sea.blob'),
    disableExperimentalSEAWarning: true,
    // It would cover only this tiny entry; the bundle uses Node's compile cache.
    useCodeCache: false,
    useSnapshot: false,
    // V8_FLAGS: see scripts/v8-flags.mjs.
    // --expose-gc-as: collectStartupGarbage in cli/commands/serve.ts.
    execArgv: [...V8_FLAGS, '--expose-gc-as=__svc_gc'],
    assets: Object.fromEntries([...bundleFiles.map((f) => [f, join(bundleDir, f)]), [ADDON, addonPath], [RUNNER, join(root, 'core/sandbox/node-runner.cjs')]]),
  };
  writeFileSync(join(work, 'sea-config.json'), JSON.stringify(config, null, 2));
  execFileSync(process.execPath, ['--experimental-sea-config', join(work, 'sea-config.json')], { stdio: 'pipe' });
  return config.output;
}

function makeExecutable(blobPath) {
  const tmp = join(work, 'svc');
  copyFileSync(process.execPath, tmp);
  chmodSync(tmp, 0o755);
  // Saves ~18 MB; optional, so install.sh needs no root for binutils.
  const strip = spawnSync('strip', [tmp], { stdio: 'pipe' });
  if (strip.error || strip.status !== 0) log('note: `strip` unavailable or failed; binary left unstripped');
  execFileSync(process.execPath, [require.resolve('postject/dist/cli.js'), tmp, 'NODE_SEA_BLOB', blobPath, '--sentinel-fuse', SENTINEL], { stdio: 'pipe' });
  // Renamed into place: no reader ever sees half a file.
  const staged = `${out}.${process.pid}.tmp`;
  copyFileSync(tmp, staged);
  chmodSync(staged, 0o755);
  renameSync(staged, out);
  return statSync(out).size;
}
