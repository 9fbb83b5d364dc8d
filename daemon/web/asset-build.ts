// At build time for the binary; on first use from source.
import { fileURLToPath } from 'node:url';

export interface BuiltAssets {
  css: string;
  js: string;
}

export async function buildWebAssets(): Promise<BuiltAssets> {
  const esbuild = await import('esbuild');
  const common = { bundle: true, minify: true, write: false, logLevel: 'silent', legalComments: 'none' } as const;
  const [css, js] = await Promise.all([
    esbuild.build({ ...common, entryPoints: [fileURLToPath(new URL('./assets/app.css', import.meta.url))], loader: { '.css': 'css' } }),
    esbuild.build({ ...common, entryPoints: [fileURLToPath(new URL('./client/app.ts', import.meta.url))], format: 'iife', target: 'es2020', platform: 'browser' }),
  ]);
  return { css: css.outputFiles[0]!.text, js: js.outputFiles[0]!.text };
}
