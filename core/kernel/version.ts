import { readFileSync } from 'node:fs';

declare const __SVC_VERSION__: string | undefined;

/** The build inlines the version; from source it is read from package.json. */
export const VERSION: string =
  typeof __SVC_VERSION__ === 'string'
    ? __SVC_VERSION__
    : (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
