// The renovation's rules, checked on the source tree (docs/architecture.md):
// no import cycles, cli → daemon → core, one owner per table, one composition root.
import { describe, expect, test } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Table → the module that owns its SQL (a `repo.ts`, or a `repo/` folder beside it). */
const OWNERS: Record<string, string> = {
  users: 'core/accounts/repo',
  sessions: 'core/accounts/repo',
  memberships: 'core/accounts/repo',
  workspaces: 'core/accounts/repo',
  password_resets: 'core/accounts/repo',
  invitations: 'core/invitations/repo',
  credentials: 'core/credentials/repo',
  agents: 'core/agents/repo',
  agent_versions: 'core/agents/repo',
  agent_shares: 'core/agents/repo',
  runs: 'core/runs/repo',
  run_steps: 'core/runs/repo',
  run_events: 'core/runs/repo',
  approvals: 'core/runs/repo',
  rate_limit_hits: 'core/runs/repo',
  conversations: 'core/conversations/repo',
  conversation_messages: 'core/conversations/repo',
  apps: 'core/apps/repo',
  app_versions: 'core/apps/repo',
  app_files: 'core/apps/repo',
  jobs: 'core/queue/repo',
  provider_accounts: 'core/provider-accounts/repo',
  usage_events: 'core/usage/repo',
  gateway_limits: 'core/quota/repo',
  workspace_settings: 'core/gateway/repo',
  workers: 'core/workers/repo',
  shares: 'core/shares/repo',
  processes: 'core/scheduler/repo',
  // Written once by the migrations themselves (core/store is the store and exempt).
  instance: 'core/store',
};

interface Source {
  path: string;
  text: string;
}

function sources(): Source[] {
  const out: Source[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir))) {
      const p = `${dir}/${name}`;
      if (name === 'node_modules' || name.startsWith('.')) continue;
      if (statSync(join(root, p)).isDirectory()) walk(p);
      else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$|test-fixture/.test(name)) out.push({ path: p, text: readFileSync(join(root, p), 'utf8') });
    }
  };
  for (const top of ['cli', 'daemon', 'core']) walk(top);
  return out;
}

const stripComments = (s: string) => s.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** Relative imports of every file, resolved to repository paths. */
function importGraph(files: Source[]): Map<string, string[]> {
  const known = new Set(files.map((f) => f.path));
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const deps: string[] = [];
    for (const m of f.text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) {
      const target = relative(root, resolve(root, dirname(f.path), m[1] ?? m[2]!));
      if (known.has(target)) deps.push(target);
    }
    graph.set(f.path, deps);
  }
  return graph;
}

/** Strongly connected components with more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) found.push(c.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Imports that go against cli → daemon → core. */
function upwardImports(graph: Map<string, string[]>): string[] {
  const rank = (p: string) => ['core', 'daemon', 'cli'].indexOf(p.split('/')[0]!);
  const bad: string[] = [];
  for (const [from, deps] of graph) for (const to of deps) if (rank(to) > rank(from)) bad.push(`${from} -> ${to}`);
  return bad;
}

/** Sibling folders that import each other (docs/architecture.md, Dependencies); a folder and its subfolder do not count. */
const MUTUAL_ALLOWED = ['core/accounts <-> core/invitations', 'core/apps <-> core/runs'];

function mutualFolders(graph: Map<string, string[]>): string[] {
  const edges = new Set<string>();
  for (const [from, deps] of graph) for (const to of deps) if (dirname(from) !== dirname(to)) edges.add(`${dirname(from)} -> ${dirname(to)}`);
  const nested = (a: string, b: string) => a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
  const pairs: string[] = [];
  for (const e of edges) {
    const [a, b] = e.split(' -> ') as [string, string];
    if (a < b && edges.has(`${b} -> ${a}`) && !nested(a, b)) pairs.push(`${a} <-> ${b}`);
  }
  return pairs.sort();
}

const isRepo = (path: string) => /^core\/[^/]+\/repo(\.ts|\/[^/]+\.ts)$/.test(path);
const ownedBy = (path: string, owner: string) => path === `${owner}.ts` || path.startsWith(`${owner}/`);

/** SQL outside repo files, and writes outside the table's owner. */
function ownershipViolations(files: Source[], owners: Record<string, string>): string[] {
  const tables = Object.keys(owners).join('|');
  const write = new RegExp(`\\b(?:INSERT\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+(${tables})\\b`, 'g');
  const any = new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE)\\s+(${tables})\\b`, 'g');
  const bad: string[] = [];
  for (const f of files) {
    if (f.path.startsWith('core/store/')) continue;
    const code = stripComments(f.text);
    if (!isRepo(f.path)) for (const m of code.matchAll(any)) bad.push(`${f.path}: SQL on ${m[1]} outside a repo`);
    for (const m of code.matchAll(write)) if (!ownedBy(f.path, owners[m[1]!]!)) bad.push(`${f.path}: writes ${m[1]}, owned by ${owners[m[1]!]}`);
  }
  return [...new Set(bad)];
}

/** Service wiring outside the composition root: WeakMap lookups by core, dependency literals. */
function wiringViolations(files: Source[]): string[] {
  const bad: string[] = [];
  for (const f of files) {
    if (f.path === 'core/services.ts') continue;
    const code = stripComments(f.text);
    if (/new WeakMap<Core\b/.test(code)) bad.push(`${f.path}: a service looked up by Core`);
    if (/\bdb: core\.db\b/.test(code)) bad.push(`${f.path}: builds a dependency object from core`);
  }
  return bad;
}

describe('architecture', () => {
  const files = sources();
  const graph = importGraph(files);

  test('no import cycles', () => {
    expect(cycles(graph)).toEqual([]);
  });

  test('imports go cli → daemon → core, never back', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  test('sibling folders import each other only where docs/architecture.md says why', () => {
    expect(mutualFolders(graph)).toEqual(MUTUAL_ALLOWED);
  });

  test('every table has exactly one owner, and only its repo writes it', () => {
    const migrations = readdirSync(join(root, 'migrations/sqlite')).map((n) => readFileSync(join(root, 'migrations/sqlite', n), 'utf8')).join('\n');
    const tables = [...migrations.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+)/g)].map((m) => m[1]!);
    expect([...new Set(tables)].sort()).toEqual(Object.keys(OWNERS).sort());
    expect(ownershipViolations(files, OWNERS)).toEqual([]);
  });

  test('services are built only in core/services.ts', () => {
    expect(files.some((f) => f.path === 'core/services.ts')).toBe(true);
    expect(wiringViolations(files)).toEqual([]);
  });

  // The checks above pass on an empty list too: prove each one finds what it looks for.
  test('each check catches a planted violation', () => {
    const planted: Source[] = [
      { path: 'core/a/x.ts', text: "import { b } from '../b/y.ts';" },
      { path: 'core/b/y.ts', text: "import { a } from '../a/x.ts';\nimport { d } from '../../daemon/z.ts';" },
      { path: 'daemon/z.ts', text: "const sql = 'SELECT * FROM runs';" },
      { path: 'core/agents/repo.ts', text: "q.run('UPDATE runs SET status = ?'); q.one('SELECT 1 FROM runs') // DELETE FROM runs" },
      { path: 'core/runs/repo/steps.ts', text: "q.run('INSERT INTO run_steps (a) VALUES (?)')" },
      { path: 'daemon/routes/x.ts', text: 'const deps = { db: core.db, clock };\nconst m = new WeakMap<Core, X>();' },
    ];
    const g = importGraph(planted);
    expect(cycles(g)).toEqual([['core/a/x.ts', 'core/b/y.ts']]);
    expect(upwardImports(g)).toEqual(['core/b/y.ts -> daemon/z.ts']);
    expect(ownershipViolations(planted, OWNERS)).toEqual([
      'daemon/z.ts: SQL on runs outside a repo',
      'core/agents/repo.ts: writes runs, owned by core/runs/repo',
    ]);
    expect(mutualFolders(g)).toEqual(['core/a <-> core/b']);
    const nested = importGraph([
      { path: 'core/c/p.ts', text: "import { q } from './sub/q.ts';" },
      { path: 'core/c/sub/q.ts', text: "import { p } from '../p.ts';" },
    ]);
    expect(mutualFolders(nested)).toEqual([]);
    expect(wiringViolations(planted)).toEqual(['daemon/routes/x.ts: a service looked up by Core', 'daemon/routes/x.ts: builds a dependency object from core']);
  });
});
