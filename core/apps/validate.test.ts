import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { MAX_FILES, MAX_TOTAL_BYTES, pathProblem, validateApp } from './validate.ts';

const page = { path: 'index.html', content: '<h1>hi</h1>' };
const problem = (input: Parameters<typeof validateApp>[0]) => {
  const r = validateApp(input);
  assert.equal(r.ok, false, 'expected a problem');
  return (r as { problem: string }).problem;
};

describe('app validation', () => {
  it('accepts a small app; entry defaults to index.html; contents become bytes', () => {
    const r = validateApp({ title: ' Demo ', files: [page, { path: 'js/app.js', content: 'ü' }] });
    assert.ok(r.ok);
    assert.equal(r.app.title, 'Demo');
    assert.equal(r.app.entry, 'index.html');
    assert.equal(r.app.totalBytes, Buffer.byteLength('<h1>hi</h1>') + 2);
    assert.deepEqual(r.app.files[1]!.content, Buffer.from('ü'));
  });

  it('at most 200 files: 200 pass, 201 are refused with the count', () => {
    const files = (n: number) => [page, ...Array.from({ length: n - 1 }, (_, i) => ({ path: `f${i}.txt`, content: 'x' }))];
    assert.ok(validateApp({ title: 't', files: files(MAX_FILES) }).ok);
    assert.match(problem({ title: 't', files: files(MAX_FILES + 1) }), /at most 200 files; this one has 201/);
  });

  it('at most 5 MiB in all, counted in UTF-8 bytes: exactly 5 MiB passes, one byte more is refused', () => {
    const half = 'a'.repeat(MAX_TOTAL_BYTES / 2);
    assert.ok(validateApp({ title: 't', files: [{ path: 'index.html', content: half }, { path: 'b.txt', content: half }] }).ok);
    assert.match(problem({ title: 't', files: [{ path: 'index.html', content: half }, { path: 'b.txt', content: half + 'a' }] }), /exceed 5 MiB.*"b\.txt"/);
    // Multi-byte characters count as their bytes, not as one character each.
    assert.match(problem({ title: 't', files: [{ path: 'index.html', content: 'é'.repeat(MAX_TOTAL_BYTES / 2 + 1) }] }), /exceed 5 MiB/);
  });

  it('refuses every path that could leave the app or be read two ways', () => {
    const cases: [string, RegExp][] = [
      ['../secret', /'\.\.'/],
      ['a/../../b', /'\.\.'/],
      ['..', /'\.\.'/],
      ['/etc/passwd', /absolute/],
      ['a\\..\\b', /backslash/],
      ['C:\\x', /backslash/],
      ['a\u0000b', /control/],
      ['a\nb', /control/],
      ['', /empty/],
      ['a//b', /empty segment/],
      ['dir/', /empty segment/],
      ['./a', /'\.' segment/],
      ['x'.repeat(513), /longer than 512/],
    ];
    for (const [path, why] of cases) {
      assert.match(pathProblem(path) ?? '', why, JSON.stringify(path));
      assert.match(problem({ title: 't', files: [page, { path, content: '' }] }), /^files\[1\]\.path/);
    }
    for (const ok of ['index.html', 'a/b/c.js', '..a', 'a..b', '.well-known/x', 'my file.html', 'x'.repeat(512)]) assert.equal(pathProblem(ok), undefined, ok);
  });

  it('refuses duplicate paths, a missing entry, no files, an empty or long title', () => {
    assert.match(problem({ title: 't', files: [page, page] }), /appears twice/);
    assert.match(problem({ title: 't', files: [{ path: 'app.html', content: '' }] }), /entry "index\.html" is not one of the files.*default entry/);
    assert.match(problem({ title: 't', files: [page], entry: 'main.html' }), /entry "main\.html" is not one of the files/);
    assert.ok(validateApp({ title: 't', files: [{ path: 'main.html', content: '' }], entry: 'main.html' }).ok);
    assert.match(problem({ title: 't', files: [] }), /at least one file/);
    assert.match(problem({ title: '  ', files: [page] }), /title must not be empty/);
    assert.match(problem({ title: 'x'.repeat(201), files: [page] }), /at most 200 characters/);
  });
});
