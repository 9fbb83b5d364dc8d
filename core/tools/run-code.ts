import * as z from 'zod';
import { appFromFiles } from '../apps/service.ts';
import { DEFAULT_ENTRY } from '../apps/validate.ts';
import { SandboxUnavailable, type OutputFile, type RunResult } from '../sandbox/types.ts';
import type { ToolDefinition, ToolRunContext } from './types.ts';

/**
 * A broken limit is an ordinary result; only abort throws (docs/sandbox.md).
 * Files left in /output become an app version.
 */

export const OUTPUT_APP_TITLE = 'run_code output';

const MAX_CODE = 256 * 1024;
const MAX_STDIN = 1024 * 1024;

export const runCodeArgs = z.strictObject({
  code: z.string().min(1, 'code is empty').max(MAX_CODE, `code is longer than ${MAX_CODE} characters`),
  stdin: z.string().max(MAX_STDIN, `stdin is longer than ${MAX_STDIN} characters`).optional(),
});

const LANGUAGE = {
  node: {
    name: 'JavaScript (Node.js 24; CommonJS or ES modules, top-level await; built-in modules only)',
    example: "console.log(require('node:os').cpus().length)",
  },
  python: { name: 'Python 3 (standard library only)', example: 'print(sum(range(10)))' },
} as const;

/** Plus the app /output became, or why not. */
export function modelView(r: Pick<RunResult, 'exitCode' | 'stdout' | 'stderr' | 'durationMs' | 'limit'>, app?: object): string {
  return JSON.stringify({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, durationMs: r.durationMs, limit: r.limit, ...(app ? { app } : {}) });
}

/** Entry: index.html, else the first HTML file, else the first file. */
async function outputApp(run: ToolRunContext | undefined, files: readonly OutputFile[], truncated: boolean): Promise<object | undefined> {
  if (!run || files.length === 0) return undefined;
  if (truncated) return { problem: '/output held more than 200 files or 5 MiB; no app was made' };
  const entry = files.find((f) => f.path === DEFAULT_ENTRY)?.path ?? files.find((f) => /\.html?$/i.test(f.path))?.path ?? files[0]!.path;
  const r = await appFromFiles(run, { title: OUTPUT_APP_TITLE, entry, files: files.map((f) => ({ path: f.path, content: f.content })) });
  return r.ok ? { appId: r.app.appId, version: r.app.version, entry } : { problem: r.problem };
}

export function createRunCodeTool(runtime: 'node' | 'python'): ToolDefinition {
  const lang = LANGUAGE[runtime];
  return {
    type: 'run_code',
    description:
      `Run a program written in ${lang.name} in an isolated sandbox and get back JSON {exitCode, stdout, stderr, durationMs, limit}. ` +
      'It has no network unless the operator allowed some hosts, no access to this server, a writable /tmp and /output, and limits on time, CPU, memory, processes and storage; ' +
      '`limit` names the one that stopped the program (time, cpu, memory, processes, storage, network) or is null. Print what you need to see; output beyond 64 KiB is cut. ' +
      `Example: ${lang.example}`,
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['code'],
      properties: {
        code: { type: 'string', description: `The whole program, in ${lang.name}.` },
        stdin: { type: 'string', description: 'Text given to the program on standard input (optional).' },
      },
    },
    config: z.strictObject({}),
    interrupted: () =>
      JSON.stringify({
        exitCode: null, stdout: '', stderr: '', durationMs: null, limit: null, interrupted: true,
        message: 'This execution was interrupted (the worker running it stopped) and its result was lost. It was not run again, because it may already have had effects; run it again only if that is safe.',
      }),
    async execute(rawArgs, _config, ctx) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const parsed = runCodeArgs.safeParse(rawArgs);
      if (!parsed.success) return `error: invalid arguments: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ')}`;
      if (!ctx.sandbox) return 'error: code execution is not available on this server';
      try {
        const result = await ctx.sandbox.run({ code: parsed.data.code, stdin: parsed.data.stdin, signal: ctx.signal });
        return modelView(result, await outputApp(ctx.run, result.files, result.filesTruncated));
      } catch (err) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        if (err instanceof SandboxUnavailable) {
          ctx.log?.error('run_code: the sandbox is not working', { error: err.message, fix: err.fix });
          return `error: the code sandbox is not working on this server (${err.message}); an operator can run \`svc doctor\` to see how to fix it`;
        }
        throw err;
      }
    },
  };
}

export const runCodeTool = createRunCodeTool('node');
