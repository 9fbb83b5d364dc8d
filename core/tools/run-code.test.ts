import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { loadConfig } from '../kernel/config/index.ts';
import { SandboxUnavailable, type RunRequest, type Sandbox } from '../sandbox/types.ts';
import { toolLookup } from './registry.ts';
import { createRunCodeTool } from './run-code.ts';
import type { ToolContext } from './types.ts';

const limits = { httpTimeoutMs: 1, httpMaxResponseBytes: 1, httpMaxRequestBytes: 1, httpAllowPrivate: false, httpAllowedHosts: [] };

function fakeSandbox(run: (req: RunRequest) => Promise<Awaited<ReturnType<Sandbox['run']>>>): Sandbox {
  return { driver: 'container', runtime: 'node', limits: {} as Sandbox['limits'], run, enforcement: async () => ({}) as never, close: async () => {} };
}

const ctx = (over: Partial<ToolContext> = {}): ToolContext => ({ signal: new AbortController().signal, limits, ...over });

describe('run_code tool', () => {
  const tool = createRunCodeTool('node');

  it('passes code and stdin to the sandbox and shows the model exactly the five fields', async () => {
    let got: RunRequest | undefined;
    const sb = fakeSandbox(async (req) => {
      got = req;
      return { exitCode: 0, stdout: 'hi\n', stderr: '', durationMs: 12, limit: null, files: [{ path: 'a', content: Buffer.from('x') }], filesTruncated: false };
    });
    const out = await tool.execute({ code: 'console.log(1)', stdin: 'in' }, {}, ctx({ sandbox: sb }));
    assert.deepEqual(JSON.parse(out), { exitCode: 0, stdout: 'hi\n', stderr: '', durationMs: 12, limit: null });
    assert.equal(got?.code, 'console.log(1)');
    assert.equal(got?.stdin, 'in');
  });

  it('bad arguments and a missing sandbox are results, not failures', async () => {
    const sb = fakeSandbox(async () => assert.fail('not run'));
    assert.match(await tool.execute({}, {}, ctx({ sandbox: sb })), /^error: invalid arguments: code: /);
    assert.match(await tool.execute({ code: 'x', extra: 1 }, {}, ctx({ sandbox: sb })), /^error: invalid arguments/);
    assert.match(await tool.execute({ code: 'x'.repeat(256 * 1024 + 1) }, {}, ctx({ sandbox: sb })), /longer than/);
    assert.match(await tool.execute({ code: 'x' }, {}, ctx()), /not available/);
  });

  it('a sandbox that cannot start tells the model and logs the fix for the operator', async () => {
    const logged: unknown[] = [];
    const log = { error: (...a: unknown[]) => logged.push(a) } as unknown as ToolContext['log'];
    const sb = fakeSandbox(async () => {
      throw new SandboxUnavailable('bubblewrap (bwrap) is not installed', 'apt-get install bubblewrap');
    });
    const out = await tool.execute({ code: 'x' }, {}, ctx({ sandbox: sb, log }));
    assert.match(out, /^error: the code sandbox is not working on this server \(bubblewrap \(bwrap\) is not installed\); an operator can run `svc doctor`/);
    assert.equal(logged.length, 1);
  });

  it('an abort of the run is thrown, not turned into a result', async () => {
    const ac = new AbortController();
    const sb = fakeSandbox(async () => {
      ac.abort(new Error('lease lost'));
      throw new Error('killed');
    });
    await assert.rejects(tool.execute({ code: 'x' }, {}, ctx({ sandbox: sb, signal: ac.signal })), /lease lost/);
  });

  it('records an interruption the model can read', () => {
    const note = JSON.parse(tool.interrupted!());
    assert.equal(note.interrupted, true);
    assert.equal(note.exitCode, null);
    assert.match(note.message, /not run again/);
  });

  it('describes the configured language to the model', () => {
    const py = toolLookup(loadConfig({ HOME: '/h', SERVICE_SANDBOX_RUNTIME: 'python' }).config)('run_code')!;
    assert.match(py.description, /Python 3/);
    assert.match(toolLookup(loadConfig({ HOME: '/h' }).config)('run_code')!.description, /JavaScript \(Node\.js 24/);
    assert.equal(toolLookup(loadConfig({ HOME: '/h' }).config)('http_request')?.type, 'http_request');
  });
});
