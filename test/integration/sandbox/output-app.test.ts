// Files a run_code program leaves in /output become an app version on the run, like create_app's,
// on both stores: the run read lists it and the model is told its id; no files, no app.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import type { Dialect } from '../../../core/store/types.ts';
import { startRuns, type RunsEnv } from '../runs/setup.ts';
import { SANDBOX_ENV } from './setup.ts';

const WRITE_APP = `const fs = require('node:fs');
fs.mkdirSync('/output/js', { recursive: true });
fs.writeFileSync('/output/index.html', '<h1>made by run_code</h1><script src="js/app.js"></script>');
fs.writeFileSync('/output/js/app.js', 'document.title = "ok"');
console.log('wrote');`;

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`run_code /output → app (${store})`, () => {
    let r: RunsEnv;
    let token: string;
    let agentId: string;
    beforeAll(async () => {
      r = await startRuns({ store, env: SANDBOX_ENV });
      token = await r.token(r.g.people.member);
      agentId = await r.agent(r.g.people.member, { tools: [{ type: 'run_code', approval: 'never' }] });
    });
    afterAll(() => r.close());

    const run = async (code: string) => {
      r.g.openai.reset();
      r.g.openai.once({ toolCalls: [{ id: 'call_c', name: 'run_code', arguments: JSON.stringify({ code }) }] });
      r.g.openai.once({ text: 'done' });
      const res = await r.start(token, agentId);
      assert.equal(res.body.status, 'completed', res.text);
      return (await r.read(token, agentId, res.body.runId)).body;
    };

    test('files in /output are listed as an app with index.html as its entry', async () => {
      const read = await run(WRITE_APP);
      assert.equal(read.apps.length, 1, JSON.stringify(read.apps));
      const app = read.apps[0];
      assert.equal(app.title, 'run_code output');
      assert.equal(app.entry, 'index.html');
      assert.deepEqual(app.files.map((f: { path: string }) => f.path).sort(), ['index.html', 'js/app.js']);
      const seen = JSON.parse(read.steps.find((s: { kind: string }) => s.kind === 'tool').output);
      assert.equal(seen.stdout, 'wrote\n');
      assert.deepEqual(seen.app, { appId: app.appId, version: 1, entry: 'index.html' });
    });

    test('a program that writes nothing to /output makes no app', async () => {
      const read = await run("console.log('no files')");
      assert.deepEqual(read.apps, []);
      assert.equal(JSON.parse(read.steps.find((s: { kind: string }) => s.kind === 'tool').output).app, undefined);
    });
  });
}
