// The newest modification time among the files that go into dist/svc, for `build.mjs --if-stale`.
// Tests are excluded: editing a test must not force a rebuild of the binary.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const DIRS = ['cli', 'core', 'daemon', 'migrations', 'scripts/build'];
const FILES = ['build.mjs', 'scripts/v8-flags.mjs', 'package.json', 'package-lock.json'];

export function newestInput(root) {
  let newest = 0;
  const visit = (path) => {
    let st;
    try {
      st = statSync(path);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name));
    } else if (!/\.test\.tsx?$/.test(path)) {
      newest = Math.max(newest, st.mtimeMs);
    }
  };
  for (const d of DIRS) visit(join(root, d));
  for (const f of FILES) visit(join(root, f));
  return newest;
}
