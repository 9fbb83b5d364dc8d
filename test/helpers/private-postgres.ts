// A PostgreSQL server of the test's own, for tests that stop or restart it.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './binary.ts';

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  adminUrl: string;
  port: number;
  restart(): void;
  stop(): void;
}

/** SVC_TEST_PG_BINDIR, else pg_config, else Debian's layout. */
export function postgresBinDir(): string {
  const fromEnv = process.env.SVC_TEST_PG_BINDIR;
  if (fromEnv) return fromEnv;
  const cfg = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const dirs = [cfg.status === 0 ? cfg.stdout.trim() : '', ...debianBinDirs()];
  const found = dirs.find((d) => d && existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl')));
  if (!found) {
    throw new Error('no initdb/pg_ctl found: install the PostgreSQL server package, or set SVC_TEST_PG_BINDIR to the directory holding them');
  }
  return found;
}

function debianBinDirs(): string[] {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return [];
  return readdirSync(base).sort().reverse().map((v) => join(base, v, 'bin'));
}

// initdb refuses to run as root: as root, the server runs as the `postgres` system user.
function asServerUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  if (!Number.isInteger(uid) || uid <= 0) throw new Error('running as root needs a `postgres` system user to run a private PostgreSQL');
  return { uid, gid: id('-g') };
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  const user = asServerUser();
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  const data = join(dir, 'data');
  if (user) chownSync(dir, user.uid, user.gid);
  chmodSync(dir, 0o700);
  const run = (cmd: string, args: string[]) => {
    const r = spawnSync(join(bin, cmd), args, { encoding: 'utf8', timeout: 120_000, cwd: dir, ...(user ?? {}) });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr || r.stdout || r.error}`);
  };
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const ctl = (action: string) => run('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'server.log'), '-w', '-t', '60', action]);
  ctl('start');
  let stopped = false;
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    restart: () => ctl('restart'),
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
