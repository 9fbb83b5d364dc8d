// The drivers on this machine (bubblewrap is installed by the test setup): what the program sees,
// what comes back, the output cap, files in /output, and allowlist networking through the egress
// proxy. Limit and escape cases run through real agent runs in test/integration/sandbox/.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { loadConfig } from '../kernel/config/index.ts';
import { startTestServer, type TestServer } from '../../test/helpers/http-target.ts';
import { createSandbox } from './index.ts';
import type { Sandbox } from './types.ts';

const sandbox = (env: Record<string, string> = {}) =>
  createSandbox(loadConfig({ HOME: '/h', SERVICE_SANDBOX_TIMEOUT_MS: '5000', SERVICE_SANDBOX_MEMORY_MB: '128', SERVICE_SANDBOX_TMP_MB: '8', ...env }).config);

describe('container driver (node)', () => {
  let sb: Sandbox;
  beforeAll(() => {
    sb = sandbox();
  });
  afterAll(() => sb.close());

  it('runs CommonJS with stdin, an empty environment, a fresh root, and returns /output files', async () => {
    const r = await sb.run({
      stdin: 'from stdin',
      code: `const fs = require('node:fs');
        fs.mkdirSync('/output/site');
        fs.writeFileSync('/output/site/index.html', '<h1>hi</h1>');
        fs.writeFileSync('/output/data.bin', Buffer.from([0, 255, 1]));
        console.log(JSON.stringify({ env: Object.keys(process.env).sort(), root: fs.readdirSync('/').sort(), stdin: fs.readFileSync(0, 'utf8'), uid: process.getuid() }));
        console.error('to stderr'); process.exitCode = 3;`,
    });
    assert.equal(r.exitCode, 3, r.stderr);
    assert.equal(r.limit, null);
    const seen = JSON.parse(r.stdout);
    assert.deepEqual(seen.env, ['HOME', 'LANG', 'PATH', 'PWD', 'SVC_SANDBOX_NODE', 'TMPDIR']);
    assert.deepEqual(seen.root, ['dev', 'lib', 'lib64', 'output', 'proc', 'sandbox', 'tmp', 'usr'].filter((d) => seen.root.includes(d)));
    assert.ok(!seen.root.includes('etc') && !seen.root.includes('home') && !seen.root.includes('root') && !seen.root.includes('work'));
    assert.equal(seen.stdin, 'from stdin');
    assert.equal(r.stderr, 'to stderr\n');
    assert.deepEqual(r.files.map((f) => [f.path, [...f.content]]), [['data.bin', [0, 255, 1]], ['site/index.html', [...Buffer.from('<h1>hi</h1>')]]]);
    assert.ok(r.durationMs > 0);
  });

  it('runs an ES module with top-level await', async () => {
    const r = await sb.run({ code: "import { setTimeout as wait } from 'node:timers/promises';\nawait wait(5);\nconsole.log('esm', typeof require);" });
    assert.equal(r.stdout, 'esm undefined\n', r.stderr);
  });

  it('cuts stdout and stderr at 64 KiB each with a marker', async () => {
    const r = await sb.run({ code: "process.stdout.write('a'.repeat(200000)); process.stderr.write('b'.repeat(70000));" });
    assert.equal(r.exitCode, 0);
    assert.match(r.stdout, /^a{65536}\n\[… output cut at 65536 bytes: 134464 more bytes not shown\]$/);
    assert.match(r.stderr, /^b{65536}\n\[… output cut at 65536 bytes: 4464 more bytes not shown\]$/);
  });

  it('the root, /dev and the runtime are read-only; only /tmp and /output are writable', async () => {
    const r = await sb.run({
      code: `const fs = require('node:fs'); const out = {};
        for (const d of ['/', '/dev', '/dev/shm', '/usr/bin', '/sandbox', '/tmp', '/output']) {
          try { fs.writeFileSync(d + '/probe', 'x'); out[d] = 'written'; } catch (e) { out[d] = e.code; } }
        console.log(JSON.stringify(out));`,
    });
    assert.deepEqual(JSON.parse(r.stdout), { '/': 'EROFS', '/dev': 'EROFS', '/dev/shm': 'EROFS', '/usr/bin': 'EROFS', '/sandbox': 'EROFS', '/tmp': 'written', '/output': 'written' });
  });
});

describe('container driver (python)', () => {
  it('runs the host python3 with stdin and collects /output', async () => {
    const sb = sandbox({ SERVICE_SANDBOX_RUNTIME: 'python' });
    try {
      const r = await sb.run({ stdin: 'x', code: "import os, sys\nopen('/output/r.txt', 'w').write('py')\nprint(sys.stdin.read(), sorted(os.environ))\nsys.exit(4)" });
      assert.equal(r.exitCode, 4, r.stderr);
      assert.match(r.stdout, /^x \[/);
      assert.ok(!/SVC_SANDBOX/.test(r.stdout), r.stdout);
      assert.deepEqual(r.files.map((f) => [f.path, f.content.toString()]), [['r.txt', 'py']]);
    } finally {
      await sb.close();
    }
  });
});

describe('none driver', () => {
  it('runs the program unconfined, with an empty environment and the wall-clock limit', async () => {
    const sb = sandbox({ SERVICE_SANDBOX_DRIVER: 'none', SERVICE_SANDBOX_TIMEOUT_MS: '1000' });
    try {
      const ok = await sb.run({ code: "require('node:fs').writeFileSync(process.env.HOME + '/output/a', 'A'); console.log(Object.keys(process.env).sort().join())" });
      assert.equal(ok.stdout, 'HOME,LANG,PATH,SVC_SANDBOX_NODE,TMPDIR\n', ok.stderr);
      assert.deepEqual(ok.files.map((f) => f.path), ['a']);
      const slow = await sb.run({ code: 'setInterval(() => {}, 1000)' });
      assert.equal(slow.limit, 'time');
      assert.equal(slow.exitCode, 137);
    } finally {
      await sb.close();
    }
  });
});

describe('allowlist networking through the egress proxy', () => {
  let target: TestServer;
  beforeAll(async () => {
    target = await startTestServer();
  });
  afterAll(() => target.close());
  const fetchBoth = (url: string) =>
    `for (const u of ['${url}']) { try { const r = await fetch(u); console.log('fetch', r.status, await r.text()); } catch (e) { console.log('fetch failed', e.cause?.code ?? e.message); process.exitCode = 1; } }
     await new Promise((res) => require('node:http').get('${url}', (r) => { let b = ''; r.on('data', (d) => (b += d)); r.on('end', () => { console.log('http', r.statusCode, b); res(); }); }).on('error', (e) => { console.log('http failed', e.message); res(); }));`;

  it('a listed host is reached (fetch and http); an unlisted one is refused and named', async () => {
    const sb = sandbox({ SERVICE_SANDBOX_NETWORK: 'allowlist', SERVICE_SANDBOX_ALLOWED_HOSTS: '127.0.0.1', SERVICE_TOOL_HTTP_ALLOW_PRIVATE: 'true' });
    try {
      const ok = await sb.run({ code: `const require = (await import('node:module')).createRequire('/sandbox/');\n${fetchBoth(`${target.origin}/text?body=pong`)}` });
      assert.equal(ok.exitCode, 0, ok.stderr);
      assert.match(ok.stdout, /^fetch 200 pong\nhttp 200 pong\n$/);
      assert.equal(target.requests.length, 2);
      const port = target.port;
      const refused = await sb.run({ code: `const require = (await import('node:module')).createRequire('/sandbox/');\n${fetchBoth(`http://localhost:${port}/text?body=no`)}` });
      assert.equal(refused.limit, 'network', JSON.stringify(refused));
      assert.match(refused.stdout, /http 403 svc egress proxy: blocked: host localhost is not in the allowed hosts \(127\.0\.0\.1\)/);
      assert.equal(target.requests.length, 2, 'the refused host was never reached');
    } finally {
      await sb.close();
    }
  });

  it("applies http_request's address guard: a listed host on a private address is refused", async () => {
    const sb = sandbox({ SERVICE_SANDBOX_NETWORK: 'allowlist', SERVICE_SANDBOX_ALLOWED_HOSTS: '127.0.0.1' });
    try {
      const r = await sb.run({ code: `const require = (await import('node:module')).createRequire('/sandbox/');\n${fetchBoth(`${target.origin}/text`)}` });
      assert.equal(r.limit, 'network');
      assert.match(r.stdout, /http 403 svc egress proxy: blocked: 127\.0\.0\.1 is not a public address \(loopback\)/);
      assert.equal(target.requests.length, 2);
    } finally {
      await sb.close();
    }
  });

  it('python reaches a listed host through the proxy', async () => {
    const sb = sandbox({ SERVICE_SANDBOX_RUNTIME: 'python', SERVICE_SANDBOX_NETWORK: 'allowlist', SERVICE_SANDBOX_ALLOWED_HOSTS: '127.0.0.1', SERVICE_TOOL_HTTP_ALLOW_PRIVATE: 'true' });
    try {
      const r = await sb.run({ code: `import urllib.request\nprint(urllib.request.urlopen('${target.origin}/text?body=py', timeout=5).read().decode())` });
      assert.equal(r.stdout, 'py\n', r.stderr);
    } finally {
      await sb.close();
    }
  });
});
