'use strict';
// SEA entry (CommonJS: the SEA main script must be). The real program is an ESM bundle split into
// chunks (ink needs ESM: top-level await in yoga-layout) and better-sqlite3 is a native addon; none of
// them can be loaded from memory, so all are embedded as SEA assets and written once to a cache
// directory keyed by their content hash. Later starts only stat them. import() of a file URL works
// from a SEA main script on Node 24 (checked with and without useCodeCache).
// build.mjs replaces the BUILD placeholder.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const sea = require('node:sea');
const { pathToFileURL } = require('node:url');

const BUILD = /*BUILD*/ { hash: 'dev', entry: 'svc.mjs', files: ['svc.mjs'], addon: 'better_sqlite3.node', runner: 'sandbox-runner.cjs' };

/** Candidate cache roots, best first; tmpdir last because it is shared with other users. */
function cacheRoots() {
  const roots = [];
  const xdg = process.env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) roots.push({ dir: path.join(xdg, 'svc'), shared: false });
  const home = process.env.HOME || safeHomedir();
  if (home && path.isAbsolute(home)) roots.push({ dir: path.join(home, '.cache', 'svc'), shared: false });
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  roots.push({ dir: path.join(os.tmpdir(), `svc-${uid}`), shared: true });
  return roots;
}

function safeHomedir() {
  try { return os.homedir(); } catch { return ''; }
}

/** In a shared directory, only trust a directory we own that nobody else can write to. */
function assertPrivate(dir) {
  const st = fs.lstatSync(dir);
  const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o022) !== 0) {
    throw new Error(`${dir} is not a private directory owned by this user`);
  }
}

/** Writes an asset unless a file of the same size is already there (the directory name is the hash). */
function materialize(dir, name) {
  const target = path.join(dir, name);
  const raw = sea.getRawAsset(name);
  try {
    if (fs.statSync(target).size === raw.byteLength) return target;
  } catch {}
  // temp + rename: a concurrent start never sees a half-written file.
  const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(tmp, new Uint8Array(raw), { mode: 0o700 });
  fs.renameSync(tmp, target);
  return target;
}

function prepare() {
  const errors = [];
  for (const root of cacheRoots()) {
    try {
      fs.mkdirSync(root.dir, { recursive: true, mode: 0o700 });
      if (root.shared) assertPrivate(root.dir);
      const dir = path.join(root.dir, BUILD.hash);
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      for (const f of BUILD.files) materialize(dir, f);
      const out = { dir, entry: path.join(dir, BUILD.entry), addon: materialize(dir, BUILD.addon) };
      prune(root.dir, BUILD.hash);
      return out;
    } catch (err) {
      errors.push(`${root.dir}: ${err && err.message}`);
    }
  }
  throw new Error(`cannot write the program cache; tried:\n  ${errors.join('\n  ')}`);
}

const PRUNE_AFTER_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Each build unpacks into its own <hash> directory, so upgrades leave old ones behind. Ours is
 * touched at every start; siblings untouched for a week go. (A week, not at once: a process of the
 * previous version may still be running and import its lazily loaded chunks from there.)
 */
function prune(root, keep) {
  try {
    const now = new Date();
    fs.utimesSync(path.join(root, keep), now, now);
    for (const name of fs.readdirSync(root)) {
      if (name === keep || !/^[0-9a-f]{16}$/.test(name)) continue;
      const dir = path.join(root, name);
      if (now.getTime() - fs.statSync(dir).mtimeMs > PRUNE_AFTER_MS) fs.rmSync(dir, { recursive: true, force: true });
    }
  } catch {
    // Housekeeping only: never a reason not to start.
  }
}

function fail(err) {
  process.stderr.write(`svc: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}

/**
 * run_code's node runtime (core/sandbox/node-runner.cjs, embedded as an asset): inside the sandbox
 * nothing is unpacked and the program is not loaded, so a run starts as fast as a bare node.
 * SVC_SANDBOX_NODE=1 is set only inside the sandbox, for children started with process.execPath.
 */
function sandboxNode() {
  const vm = require('node:vm');
  const args = process.argv.slice(process.argv[2] === '__sandbox-node' ? 3 : 2);
  const mod = { exports: {} };
  // The option that lets the runner import() the program is flagged experimental; its warning
  // (emitted at the first import()) would land in the program's stderr. Only it is dropped.
  const emitWarning = process.emitWarning;
  process.emitWarning = (w, ...rest) => (String(w).includes('USE_MAIN_CONTEXT_DEFAULT_LOADER') ? undefined : emitWarning.call(process, w, ...rest));
  const fn = vm.compileFunction(sea.getAsset(BUILD.runner, 'utf8'), ['require', 'module', 'exports'], {
    filename: BUILD.runner,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  fn(require, mod, mod.exports);
  mod.exports.main(args);
}

let files;
if (process.argv[2] === '__sandbox-node' || process.env.SVC_SANDBOX_NODE === '1') {
  sandboxNode();
} else {
  try {
    files = prepare();
  } catch (err) {
    fail(err);
  }
  start();
}

function start() {

  // Loaded on first use: `svc --help` or a PostgreSQL store never pays for dlopen. The store passes
  // this object to better-sqlite3 as `nativeBinding`.
  let addon;
  Object.defineProperty(globalThis, '__SVC_SQLITE_ADDON__', {
    configurable: true,
    get() {
      if (addon === undefined) {
        const mod = { exports: {} };
        process.dlopen(mod, files.addon);
        addon = mod.exports;
      }
      return addon;
    },
  });

  // build.mjs starts the binary with --expose-gc-as=__svc_gc for one purpose: `svc serve` collects its
  // start-up garbage once it is up (cli/commands/serve.ts). V8 makes that global non-deletable, so it
  // is handed over under our own name and the global emptied: no other code sees or calls it.
  if (typeof globalThis.__svc_gc === 'function') {
    Object.defineProperty(globalThis, '__SVC_GC__', { configurable: true, value: globalThis.__svc_gc });
    globalThis.__svc_gc = undefined;
  }

  // V8 code cache for the bundle, kept beside it: later starts skip most parsing and compiling.
  try {
    require('node:module').enableCompileCache(path.join(files.dir, 'compile-cache'));
  } catch {}

  import(pathToFileURL(files.entry).href)
    .then((m) => m.main(process.argv))
    .catch(fail);
}
