#!/usr/bin/env node
import { Command } from 'commander';
import { VERSION } from '../core/kernel/version.ts';
import { explainError } from './explain-error.ts';

/** Subcommands load on use: `svc --help` never loads the HTTP stack. */
export function buildProgram(): Command {
  const program = new Command('svc')
    .description('Self-hosted agent runner and OpenAI-compatible inference gateway')
    .version(VERSION, '-v, --version')
    .showHelpAfterError()
    .addHelpText(
      'after',
      '\nConfiguration is read from environment variables; run `svc doctor` to check it.\nDocs: README.md',
    );

  program
    .command('serve')
    .description('Start the HTTP service (default port 8484) on SQLite or PostgreSQL')
    .option('--no-migrate', 'refuse to start when migrations are pending instead of applying them')
    .action(async (opts) => (await import('./commands/serve.ts')).serve(opts));

  program
    .command('worker')
    .description('Run queued agent runs and scheduled work from the store (run one or several under systemd)')
    .option('-c, --concurrency <n>', 'jobs run at once', '4')
    .option('--once', 'process what is due, then exit')
    .option('--stop-timeout <ms>', 'on SIGTERM, how long in-flight runs get to finish or hand back', '30000')
    .action(async (opts) => (await import('./commands/worker.ts')).worker(opts));

  program
    .command('setup')
    .description('Write the production environment file (fresh secrets, mode 0600) and print the next steps')
    .requiredOption('--app-origin <url>', 'public https:// origin of the workbench, e.g. https://svc.example.com')
    .requiredOption('--preview-origin <url>', 'a second https:// host name for app previews, e.g. https://preview.svc.example.com')
    // Not --env-file: Node reads that anywhere on the command line.
    .option('--config <file>', 'the environment file to write', '/etc/svc/svc.env')
    .option('--data-dir <dir>', 'data directory of the service (SQLite file)', '/var/lib/svc')
    .option('--port <port>', 'loopback port the reverse proxy forwards to', '8484')
    .option('--database-url <url>', 'PostgreSQL instead of SQLite (postgres://…)')
    .option('--force', 'replace an existing file (new secrets: stored provider keys become unreadable)')
    .action(async (opts) => (await import('./commands/setup.ts')).setup({ ...opts, envFile: opts.config }));

  program
    .command('systemd')
    .description('Write systemd units for `svc serve` (svc.service) and `svc worker` (svc-worker@.service); prints them without --dir')
    .option('--dir <dir>', 'directory to write the unit files into (e.g. /etc/systemd/system)')
    .option('--user <user>', 'user the services run as', 'svc')
    .option('--config <file>', 'environment file with the configuration (EnvironmentFile=)', '/etc/svc/svc.env')
    .option('--data-dir <dir>', 'writable data directory (SQLite file, lock, cache)', '/var/lib/svc')
    .option('--bin <path>', 'absolute path of the installed svc binary (default: this binary)')
    .option('--stop-timeout <ms>', 'the worker\'s graceful stop timeout; TimeoutStopSec is set above it', '30000')
    .action(async (opts) => (await import('./commands/systemd.ts')).systemd({ ...opts, envFile: opts.config }));

  program
    .command('migrate')
    .description('Apply pending schema migrations')
    .option('--status', 'list migrations and whether each is applied, without changing anything')
    .option('--json', 'machine-readable output')
    .action(async (opts) => (await import('./commands/migrate.ts')).migrate(opts));

  program
    .command('doctor')
    .description('Check configuration, store, secrets and model targets, and say how to fix each problem. Only looks: creates, migrates and writes nothing')
    .option('--json', 'machine-readable output')
    .action(async (opts) => (await import('./commands/doctor.ts')).doctor(opts));

  const user = program.command('user').description('Manage accounts from the terminal');
  user
    .command('reset-password')
    .description('Print a one-time link (valid one hour) with which the account chooses a new password; it signs the account out everywhere')
    .requiredOption('--email <email>', 'the account\'s address')
    .option('--json', 'machine-readable output')
    .action(async (opts) => (await import('./commands/user.ts')).userResetPassword(opts));

  const invite = program
    .command('invite')
    .description('Create, list, resend and revoke invitations, on the store directly, with owner rights')
    .addHelpText('after', '\nDefault workspace: the operator workspace (the first account\'s). Docs: docs/invitations.md');
  const inviteCmd = () => import('./commands/invite.ts');
  invite
    .command('create')
    .description('Create an invitation; prints its token and sign-up link once')
    .requiredOption('--email <email>', 'address the invitation is valid for')
    .requiredOption('--role <role>', 'viewer, member, admin or owner')
    .option('--workspace <id>', 'workspace id or name (default: the operator workspace)')
    .option('--json', 'machine-readable output')
    .action(async (opts) => (await inviteCmd()).inviteCreate(opts));
  invite
    .command('list')
    .description('List invitations with status, expiry and a masked token preview')
    .option('--workspace <id>', 'workspace id or name (default: the operator workspace)')
    .option('--json', 'machine-readable output')
    .action(async (opts) => (await inviteCmd()).inviteList(opts));
  invite
    .command('resend')
    .description('Issue a new token and a new seven-day period; the old token stops working')
    .argument('<id>', 'invitation id (inv_…)')
    .option('--workspace <id>', 'workspace id or name (default: the invitation\'s own)')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts) => (await inviteCmd()).inviteResend(id, opts));
  invite
    .command('revoke')
    .description('Revoke a pending invitation')
    .argument('<id>', 'invitation id (inv_…)')
    .option('--workspace <id>', 'workspace id or name (default: the invitation\'s own)')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts) => (await inviteCmd()).inviteRevoke(id, opts));

  // run_code's sandboxed node, from source; the binary's SEA entry does it earlier.
  program
    .command('__sandbox-node', { hidden: true })
    .allowUnknownOption()
    .helpOption(false)
    .argument('[args...]')
    .action(async (args: string[]) => {
      const { createRequire } = await import('node:module');
      (createRequire(import.meta.url)('../core/sandbox/node-runner.cjs') as { main(a: string[]): void }).main(args);
    });

  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    process.stderr.write(`svc: ${explainError(err)}\n`);
    process.exit(1);
  }
}

// The SEA entry calls main() itself.
const invokedDirectly = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invokedDirectly) {
  main(process.argv).catch((err: unknown) => {
    process.stderr.write(`svc: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
