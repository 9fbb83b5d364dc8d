import * as z from 'zod';
import { appFromFiles } from '../apps/service.ts';
import { DEFAULT_ENTRY, MAX_FILES, MAX_TOTAL_BYTES } from '../apps/validate.ts';
import type { ToolDefinition } from './types.ts';

/** A broken rule is a result the model can fix, never a failed run. */

const args = z.strictObject({
  title: z.string(),
  files: z.array(z.strictObject({ path: z.string(), content: z.string() })),
  entry: z.string().optional(),
});

const parameters = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'files'],
  properties: {
    title: { type: 'string', description: 'Name of the app. Calling create_app again with the same title in this run stores a new version of that app.' },
    files: {
      type: 'array',
      description: `The app's files (at most ${MAX_FILES}, ${MAX_TOTAL_BYTES / 1024 / 1024} MiB in all). Paths are relative ('index.html', 'js/app.js'), without '..'.`,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['path', 'content'],
        properties: { path: { type: 'string' }, content: { type: 'string', description: 'The file as text.' } },
      },
    },
    entry: { type: 'string', description: `The file a preview opens (default ${DEFAULT_ENTRY}).` },
  },
};

export const createAppTool: ToolDefinition = {
  type: 'create_app',
  description:
    'Create a small static web app (HTML, CSS, JavaScript, data files) that the user can open in a sandboxed preview. ' +
    'It runs in an isolated origin: no cookies, no localStorage, no access to the service; fetch only public URLs or its own files.',
  parameters,
  config: z.strictObject({}) as z.ZodType<Record<string, unknown>>,
  async execute(raw, _config, ctx) {
    const parsed = args.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return `error: invalid arguments: ${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`;
    }
    if (!ctx.run) return 'error: create_app can only be used inside an agent run.';
    const r = await appFromFiles(ctx.run, parsed.data);
    if (!r.ok) return `error: ${r.problem}`;
    const a = r.app;
    return JSON.stringify({ appId: a.appId, version: a.version, title: a.title, entry: a.entry, files: a.fileCount, bytes: a.totalBytes, note: 'Stored. The user opens it from the run through a preview link.' });
  },
};
