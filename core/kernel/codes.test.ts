import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { ERROR_CODES, type CodeSpec } from './codes.ts';

const ROOT = join(import.meta.dirname, '../..');

/** Every non-test source file of core, daemon and cli except the catalogue itself. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name))
    .filter((p) => !p.endsWith(join('core', 'kernel', 'codes.ts')));
}

it('lists only codes some source file answers with', () => {
  const text = ['core', 'daemon', 'cli'].flatMap(sources).map((p) => readFileSync(p, 'utf8')).join('\n');
  const unused = Object.keys(ERROR_CODES).filter((code) => !text.includes(`'${code}'`) && !text.includes(`"${code}"`));
  assert.deepEqual(unused, [], 'codes in core/error-codes.ts that no source file uses (dead or misspelt)');
});

it('gives each code an error status and a snake_case name', () => {
  for (const [code, spec] of Object.entries(ERROR_CODES) as [string, CodeSpec][]) {
    assert.match(code, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/, code);
    const statuses = [spec.status, ...(Array.isArray(spec.also) ? spec.also : [])];
    for (const s of statuses) assert.ok(Number.isInteger(s) && s >= 400 && s <= 599, `${code}: ${s}`);
    if (Array.isArray(spec.also)) assert.ok(!spec.also.includes(spec.status), `${code}: also repeats its status`);
  }
});
