import type { BuiltAssets } from './asset-build.ts';
import { createHash } from 'node:crypto';

/** Content-hashed, so it can be cached for a year. */
export interface Asset {
  path: string;
  body: string;
  type: string;
}

export interface WebAssets {
  css: Asset;
  js: Asset;
  byPath: Map<string, Asset>;
}

declare global {
  // Set by the binary's entry (build.mjs).
  var __SVC_WEB_ASSETS__: BuiltAssets | undefined;
}

let loading: Promise<WebAssets> | undefined;

const hash = (body: string) => createHash('sha256').update(body).digest('hex').slice(0, 12);

function index(built: BuiltAssets): WebAssets {
  const css = { path: `/assets/app.${hash(built.css)}.css`, body: built.css, type: 'text/css; charset=utf-8' };
  const js = { path: `/assets/app.${hash(built.js)}.js`, body: built.js, type: 'text/javascript; charset=utf-8' };
  return { css, js, byPath: new Map([[css.path, css], [js.path, js]]) };
}

/** Inlined in the binary, or built on first use from source. */
export function webAssets(): Promise<WebAssets> {
  loading ??= (async () => {
    if (globalThis.__SVC_WEB_ASSETS__) return index(globalThis.__SVC_WEB_ASSETS__);
    // Computed, so the binary's bundler does not pull esbuild in.
    const builder = './asset-build.ts';
    const { buildWebAssets } = (await import(builder)) as typeof import('./asset-build.ts');
    return index(await buildWebAssets());
  })();
  return loading;
}
