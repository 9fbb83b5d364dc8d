// create_app through real runs on both stores: an app version stored on the run and listed by the
// run read; broken rules come back to the model as a tool result and the run goes on; the same
// title makes a new version; preview links for whoever may read the run (and no one else); a
// share of the run shows its apps with fresh links.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import type { Dialect } from '../../../core/store/types.ts';
import { PREVIEW_ORIGIN, startApps, tokenOf, type AppsEnv } from './setup.ts';

const page = (n: number) => ({ path: 'index.html', content: `<!doctype html><h1>App ${n}</h1><script src="js/app.js"></script>` });
const script = { path: 'js/app.js', content: 'document.title = "ran";' };

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`create_app and preview links (${store})`, () => {
    let a: AppsEnv;
    beforeAll(async () => {
      a = await startApps(store);
    });
    afterAll(() => a.close());
    beforeEach(() => a.r.g.openai.reset());

    test('the tool stores an app version; the run read lists it with its files', async () => {
      const { read, toolOutput } = await a.makeApp({ title: 'Counter', files: [page(1), script] });
      const out = JSON.parse(toolOutput);
      assert.match(out.appId, /^app_[a-z0-9]{20}$/);
      assert.equal(out.version, 1);
      assert.equal(out.files, 2);
      assert.deepEqual(read.apps, [
        { appId: out.appId, version: 1, title: 'Counter', entry: 'index.html', files: [{ path: 'index.html', size: Buffer.byteLength(page(1).content) }, { path: 'js/app.js', size: Buffer.byteLength(script.content) }] },
      ]);
      assert.ok((read.events as any[]).some((e) => e.kind === 'app.created' && e.data.appId === out.appId));
      // The model was offered the tool with its schema.
      assert.equal(a.r.g.openai.requests[0]!.body.tools[0].function.name, 'create_app');
    });

    test('a run without apps lists none', async () => {
      a.r.g.openai.once({ text: 'No app today.' });
      const s = await a.r.start(a.token, a.agentId, { inputText: 'hi' });
      assert.deepEqual((await a.r.read(a.token, a.agentId, s.body.runId)).body.apps, []);
    });

    for (const [name, args, why] of [
      ['a path with ..', { title: 'Bad', files: [page(1), { path: '../escape.js', content: 'x' }] }, /files\[1\]\.path "\.\.\/escape\.js" contains '\.\.'/],
      ['an absolute path', { title: 'Bad', files: [{ path: '/index.html', content: 'x' }] }, /absolute/],
      ['201 files', { title: 'Big', files: [page(1), ...Array.from({ length: 200 }, (_, i) => ({ path: `f${i}.txt`, content: '' }))] }, /at most 200 files/],
      ['more than 5 MiB', { title: 'Big', files: [{ path: 'index.html', content: 'x'.repeat(5 * 1024 * 1024 + 1) }] }, /exceed 5 MiB/],
      ['no entry file', { title: 'NoEntry', files: [script] }, /entry "index\.html" is not one of the files/],
      ['arguments of the wrong shape', { title: 'X', files: 'index.html' }, /^error: invalid arguments: files/],
    ] as const) {
      test(`${name}: a tool result the model can fix, not a failed run; nothing stored`, async () => {
        const { read, toolOutput } = await a.makeApp(args as Record<string, unknown>);
        assert.match(toolOutput, /^error: /);
        assert.match(toolOutput, why);
        assert.equal(read.run.status, 'completed');
        assert.deepEqual(read.apps, []);
        // The model's next call carried the error as the tool message.
        const msgs = a.r.g.openai.requests[1]!.body.messages as { role: string; content: string }[];
        assert.equal(msgs.at(-1)!.role, 'tool');
        assert.match(msgs.at(-1)!.content, why);
      });
    }

    test('the same title again in the run is version 2; the read lists both versions', async () => {
      a.r.g.openai.once({ toolCalls: [{ id: 'c1', name: 'create_app', arguments: JSON.stringify({ title: 'Twice', files: [page(1)] }) }] });
      a.r.g.openai.once({ toolCalls: [{ id: 'c2', name: 'create_app', arguments: JSON.stringify({ title: 'Twice', files: [page(2), script], entry: 'index.html' }) }] });
      a.r.g.openai.once({ toolCalls: [{ id: 'c3', name: 'create_app', arguments: JSON.stringify({ title: 'Other', files: [{ path: 'main.html', content: 'm' }], entry: 'main.html' }) }] });
      a.r.g.openai.once({ text: 'Done.' });
      const s = await a.r.start(a.token, a.agentId, { inputText: 'twice' });
      assert.equal(s.body.status, 'completed', s.text);
      const apps = (await a.r.read(a.token, a.agentId, s.body.runId)).body.apps as any[];
      assert.deepEqual(apps.map((x) => [x.title, x.version, x.entry, x.files.length]), [['Twice', 1, 'index.html', 1], ['Twice', 2, 'index.html', 2], ['Other', 1, 'main.html', 1]]);
      assert.equal(apps[0].appId, apps[1].appId);
      assert.notEqual(apps[0].appId, apps[2].appId);
    });

    test('preview links: 201 {url, expiresAt} for the run owner, latest version by default', async () => {
      const { read } = await a.makeApp({ title: 'Linked', files: [{ path: 'app page.html', content: 'x' }], entry: 'app page.html' });
      const appId = read.apps[0].appId as string;
      const res = await a.link(appId);
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ['expiresAt', 'url']);
      assert.ok(res.body.url.startsWith(`${PREVIEW_ORIGIN}/p/`));
      assert.ok(res.body.url.endsWith('/app%20page.html'), res.body.url);
      assert.match(tokenOf(res.body.url), new RegExp(`^${appId}\\.1\\.ws_[a-z0-9]+\\.\\d+\\.[A-Za-z0-9_-]{43}$`));
      // One hour from now (the manual clock), to the second.
      assert.equal(res.body.expiresAt, new Date(Math.floor(a.r.g.core.clock.now() / 1000) * 1000 + 3600_000).toISOString());
      const v1 = await a.link(appId, { version: 1 });
      assert.equal(v1.status, 201, v1.text);
    });

    test('preview links: anyone else, an unknown app or version is the same 404; bad input 4xx; CSRF needed', async () => {
      const { read } = await a.makeApp({ title: 'Private', files: [page(1)] });
      const appId = read.apps[0].appId as string;
      const nf = [
        await a.link(appId, undefined, 'admin'),
        await a.link(appId, undefined, 'owner'),
        await a.link(appId, undefined, 'viewer'),
        await a.link(appId, undefined, 'outsider', a.r.g.people.outsider.ownWorkspace),
        await a.link(appId, undefined, 'member', a.r.g.people.member.ownWorkspace),
        await a.link('app_00000000000000000000'),
      ];
      for (const r of nf) {
        assert.equal(r.status, 404, r.text);
        assert.equal(r.body.error.code, 'not_found');
        assert.equal(r.body.error.message, 'App not found.');
      }
      assert.equal((await a.link(appId, { version: 2 })).status, 404);
      const bad = await a.link(appId, { version: 'one' });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.field, 'version');
      assert.equal((await a.link(appId, { version: 1, extra: true })).status, 400);
      const noCsrf = await fetch(`${a.r.g.base}/api/app/apps/${appId}/preview-links`, { method: 'POST', headers: a.r.g.people.member.headers({ csrf: false, workspace: a.r.g.people.workspace }) });
      assert.equal(noCsrf.status, 403);
      const noSession = await fetch(`${a.r.g.base}/api/app/apps/${appId}/preview-links`, { method: 'POST' });
      assert.equal(noSession.status, 401);
    });

    test('a share of the run shows its apps, each with a fresh preview link', async () => {
      const { runId, read } = await a.makeApp({ title: 'Shared', files: [page(1), script] });
      const share = await a.r.app(a.r.g.people.member, 'POST', '/api/app/shares', { kind: 'run', id: runId });
      assert.equal(share.status, 201, share.text);
      const first = await (await fetch(`${a.r.g.base}/api/public/share/${share.body.token}`)).json();
      assert.equal(first.apps.length, 1);
      const app = first.apps[0];
      assert.deepEqual({ ...app, preview: undefined }, { ...read.apps[0], preview: undefined });
      assert.ok(app.preview.url.startsWith(`${PREVIEW_ORIGIN}/p/${read.apps[0].appId}.1.`));
      assert.ok(app.preview.url.endsWith('/index.html'));
      a.r.g.fx.clock.advance(10_000);
      const second = await (await fetch(`${a.r.g.base}/api/public/share/${share.body.token}`)).json();
      assert.notEqual(second.apps[0].preview.url, app.preview.url, 'minted at each read');
      assert.ok(Date.parse(second.apps[0].preview.expiresAt) > Date.parse(app.preview.expiresAt));
    });
  });
}
