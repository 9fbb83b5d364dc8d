// The API reference from the built binary (issue 17 item 1): the document is generated from the
// bundled zod schemas and the page carries everything it shows, so both must work from dist/svc
// copied alone to an empty directory.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, test } from 'vitest';
import { cleanEnv, ensureBuilt, freePort, isolatedBinary, repoRoot, start, stop, waitForStatus, type Sandbox } from '../helpers/binary.ts';

let sb: Sandbox;
beforeAll(() => {
  ensureBuilt();
  sb = isolatedBinary();
});
afterAll(() => sb?.cleanup());

test('the binary serves /api/openapi.json and /api/docs', async () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  const port = await freePort();
  const run = start(sb, ['serve'], cleanEnv(sb.home, { PORT: String(port) }));
  try {
    await waitForStatus(run, `http://127.0.0.1:${port}/api/health`);
    const res = await fetch(`http://127.0.0.1:${port}/api/openapi.json`);
    assert.equal(res.status, 200);
    const doc = (await res.json()) as { openapi: string; info: { version: string }; paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } }>> };
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, pkg.version);
    // A body schema came out of the bundled zod: the login body names its two fields.
    const login = doc.paths['/api/auth/login']!.post!.requestBody!.content['application/json']!.schema;
    assert.deepEqual(Object.keys(login.properties ?? {}), ['email', 'password']);
    const page = await fetch(`http://127.0.0.1:${port}/api/docs`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<code>\/api\/app\/provider-accounts<\/code>/);
  } finally {
    await stop(run);
  }
});
