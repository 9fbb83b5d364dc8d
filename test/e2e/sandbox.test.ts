// The built binary is run_code's node runtime: `svc __sandbox-node` runs a program like node would
// (ES modules with top-level await, CommonJS, -e, children started with process.execPath) without
// unpacking the program, and `svc doctor` runs a one-line program through the container driver.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, ensureBuilt, isolatedBinary, runSync, type Sandbox } from '../helpers/binary.ts';

describe('svc as the sandbox node runtime', () => {
  let sb: Sandbox;
  beforeAll(() => {
    ensureBuilt();
    sb = isolatedBinary();
  });
  afterAll(() => sb.cleanup());

  test('runs an ES module and a CommonJS file; nothing is unpacked; no warning on stderr', () => {
    const esm = join(sb.home, 'esm.js');
    writeFileSync(esm, "import { platform } from 'node:os';\nawait new Promise((r) => setTimeout(r, 5));\nconsole.log('esm', platform(), process.argv.length);");
    const cjs = join(sb.home, 'cjs.js');
    writeFileSync(cjs, "const { execFileSync } = require('node:child_process');\nconsole.log('cjs', execFileSync(process.execPath, ['-e', 'console.log(6 * 7)']).toString().trim());");
    const a = runSync(sb, ['__sandbox-node', esm]);
    assert.equal(a.status, 0, a.stderr);
    assert.equal(a.stdout, 'esm linux 2\n');
    assert.equal(a.stderr, '');
    const b = runSync(sb, ['__sandbox-node', cjs]);
    assert.equal(b.stdout, 'cjs 42\n', b.stderr);
    assert.equal(b.stderr, '');
    assert.equal(existsSync(join(sb.home, '.cache')), false, 'the program cache was not written');
  });

  test('svc doctor runs a program through the container driver', () => {
    const r = runSync(sb, ['doctor', '--json'], cleanEnv(sb.home));
    const sandbox = (JSON.parse(r.stdout) as { findings: { check: string; status: string; message: string }[] }).findings.filter((f) => f.check.startsWith('sandbox'));
    assert.equal(sandbox[0]?.status, 'ok', JSON.stringify(sandbox));
    assert.match(sandbox[0]!.message, /container driver, node: a one-line program ran in \d+ ms/);
  });
});
