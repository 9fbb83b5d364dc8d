// Rewrites the bundle's ESM imports of Node builtins into require() calls (build.mjs runs it on every
// output chunk).
//
// Why: for `import … from 'node:x'` Node builds an ESM facade that reads every export of the builtin
// at link time, which runs their lazy getters — node:process's stdin/stdout/report/finalization,
// node:fs's promises API and watchers, node:net's BlockList and SocketAddress, node:util's parseArgs,
// worker_threads through several of them, and so on: 73 internal modules a bare node:http server does
// not load, ~15 ms of start-up measured on this bundle's imports alone. require() returns the module
// object and esbuild's code reads only the properties it uses, when it uses them.
//
// esbuild emits imports in five shapes (`import{a as b}from`, `import*as x from`, `import x from`,
// `import x,{a}from`, `import"…"`), at the start of each bundled module's code (not always at the
// top of the chunk). Each becomes a `const` at the top of the chunk, right after the banner that
// defines `require`, which keeps the ESM guarantee that the binding exists before any code runs
// (builtins depend on nothing of ours, so evaluating them first changes no order that matters).
// Anything else that imports a builtin fails the build rather than being left half-converted.

import { isBuiltin } from 'node:module';

const NAME = String.raw`[A-Za-z_$][\w$]*`;
const SPEC = String.raw`"([a-z0-9_/:]+)"`;
const IMPORT = new RegExp(
  String.raw`import(?:\{([^{}]*)\}|\*as (${NAME}) | (${NAME})(?:,\{([^{}]*)\}| )|)(?:from)?${SPEC};?`,
  'g',
);

/** `a as b,c` → `a:b,c` (destructuring). `default as x` never appears for builtins; refuse it. */
function destructure(list, spec) {
  return list
    .split(',')
    .filter(Boolean)
    .map((item) => {
      const [from, to] = item.split(' as ');
      if (from === 'default') throw new Error(`builtins: unexpected default import of ${spec}`);
      return to === undefined ? from : `${from}:${to}`;
    })
    .join(',');
}

/**
 * @param {string} code a chunk esbuild wrote, starting with `banner`
 * @param {string} banner the banner build.mjs gave esbuild (defines `require`)
 * @returns {{ code: string, count: number }}
 */
export function requireBuiltins(code, banner) {
  if (!code.startsWith(banner)) throw new Error('builtins: chunk does not start with the banner');
  const decls = [];
  const body = code.slice(banner.length).replace(IMPORT, (match, named, ns, def, defNamed, spec) => {
    if (!isBuiltin(spec)) return match;
    const req = `require(${JSON.stringify(spec)})`;
    if (named === undefined && ns === undefined && def === undefined) decls.push(`${req};`);
    else if (named !== undefined) decls.push(`const{${destructure(named, spec)}}=${req};`);
    else if (ns !== undefined) decls.push(`const ${ns}=${req};`);
    else {
      decls.push(`const ${def}=${req};`);
      if (defNamed !== undefined) decls.push(`const{${destructure(defNamed, spec)}}=${def};`);
    }
    return '';
  });
  const left = /\bimport\s*[^;]{0,400}?\bfrom\s*["']node:|\bimport\s*["']node:/.exec(body);
  if (left) throw new Error(`builtins: an import of a builtin was not rewritten: ${body.slice(left.index, left.index + 120)}`);
  return { code: `${banner}\n${decls.join('')}${body}`, count: decls.length };
}
