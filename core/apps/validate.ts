/** A violation is a sentence for the model, not a failed run. */

export const MAX_FILES = 200;
export const MAX_TOTAL_BYTES = 5 * 1024 * 1024;
export const MAX_PATH_CHARS = 512;
export const MAX_TITLE_CHARS = 200;
export const DEFAULT_ENTRY = 'index.html';

export interface AppFileInput {
  path: string;
  content: string | Uint8Array;
}

export interface AppInput {
  title: string;
  files: readonly AppFileInput[];
  entry?: string | undefined;
}

export interface ValidFile {
  path: string;
  content: Buffer;
}

export interface ValidApp {
  title: string;
  entry: string;
  files: ValidFile[];
  totalBytes: number;
}

// Never part of a file name a browser could ask for.
const CONTROL = /[\u0000-\u001f\u007f]/;

export function pathProblem(path: string): string | undefined {
  if (path.length === 0) return 'is empty';
  if (path.length > MAX_PATH_CHARS) return `is longer than ${MAX_PATH_CHARS} characters`;
  if (CONTROL.test(path)) return 'contains a control character (NUL, newline, …)';
  if (path.includes('\\')) return "contains a backslash; separate directories with '/'";
  if (path.startsWith('/')) return "is absolute; give a path relative to the app's root (e.g. index.html)";
  for (const seg of path.split('/')) {
    if (seg === '') return "has an empty segment ('//' or a trailing '/')";
    if (seg === '..') return "contains '..'; paths must stay inside the app";
    if (seg === '.') return "contains a '.' segment; write the path without it";
  }
  return undefined;
}

/** Contents as bytes, or the first problem. */
export function validateApp(input: AppInput): { ok: true; app: ValidApp } | { ok: false; problem: string } {
  const bad = (problem: string) => ({ ok: false as const, problem });
  const title = input.title.trim();
  if (title === '') return bad('title must not be empty.');
  if (title.length > MAX_TITLE_CHARS) return bad(`title must be at most ${MAX_TITLE_CHARS} characters.`);
  if (input.files.length === 0) return bad('files must hold at least one file (e.g. index.html).');
  if (input.files.length > MAX_FILES) return bad(`an app has at most ${MAX_FILES} files; this one has ${input.files.length}.`);
  const seen = new Set<string>();
  const files: ValidFile[] = [];
  let totalBytes = 0;
  for (const [i, f] of input.files.entries()) {
    const problem = pathProblem(f.path);
    if (problem) return bad(`files[${i}].path ${JSON.stringify(f.path.slice(0, 100))} ${problem}.`);
    if (seen.has(f.path)) return bad(`files[${i}].path ${JSON.stringify(f.path)} appears twice.`);
    seen.add(f.path);
    const content = typeof f.content === 'string' ? Buffer.from(f.content, 'utf8') : Buffer.from(f.content);
    totalBytes += content.length;
    if (totalBytes > MAX_TOTAL_BYTES) return bad(`the files exceed ${MAX_TOTAL_BYTES / 1024 / 1024} MiB in all (reached at files[${i}] ${JSON.stringify(f.path)}); make the app smaller.`);
    files.push({ path: f.path, content });
  }
  const entry = input.entry ?? DEFAULT_ENTRY;
  if (!seen.has(entry)) {
    return bad(`entry ${JSON.stringify(entry.slice(0, 100))} is not one of the files; add it or name an existing file as entry${input.entry === undefined ? ' (the default entry is index.html)' : ''}.`);
  }
  return { ok: true, app: { title, entry, files, totalBytes } };
}
