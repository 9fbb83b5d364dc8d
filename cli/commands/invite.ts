import { operatorWorkspace, workspacesByIdOrName } from '../../core/accounts/repo.ts';
import type { Core } from '../../core/index.ts';
import { deliverInvitation } from '../../core/invitations/delivery.ts';
import {
  createInvitation,
  invitationWorkspace,
  listInvitations,
  resendInvitation,
  revokeInvitation,
  type Actor,
  type InvitationDeps,
} from '../../core/invitations/service.ts';
import type { IssuedInvitation } from '../../core/invitations/types.ts';
import { plainTable } from '../ui/invitation-columns.ts';
import { CliError, runTool } from '../command.ts';
import type { Services } from '../../core/services.ts';

/**
 * Owner rights: whoever reads this host's database and secrets controls svc anyway.
 * Same service and validation as the API.
 */
const OPERATOR: Actor = { userId: null, role: 'owner' };

export interface InviteIo {
  env?: NodeJS.ProcessEnv;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  isTTY?: boolean;
}

interface Ctx {
  core: Core;
  services: Services;
  deps: InvitationDeps;
  out: (text: string) => void;
  err: (text: string) => void;
}

interface Workspace {
  id: string;
  name: string;
}

function run(sub: string, io: InviteIo, fn: (ctx: Ctx) => Promise<void>): Promise<void> {
  const out = io.stdout ?? ((t: string) => void process.stdout.write(t));
  const err = io.stderr ?? ((t: string) => void process.stderr.write(t));
  return runTool(`svc invite ${sub}`, { ...(io.env ? { env: io.env } : {}), stderr: err }, ({ core, services }) => fn({ core, services, deps: services.invitations, out, err }));
}

/** Id or exact name; default: the operator workspace. */
async function resolveWorkspace(core: Core, wanted: string | undefined): Promise<Workspace> {
  if (wanted) {
    const rows = await workspacesByIdOrName(core.db, wanted);
    const byId = rows.find((w) => w.id === wanted);
    if (byId) return byId;
    if (rows.length === 1) return rows[0]!;
    if (rows.length > 1) throw new CliError(`several workspaces are named "${wanted}": pass its id (${rows.map((w) => w.id).join(', ')})`);
    throw new CliError(`no workspace "${wanted}"`);
  }
  const op = await operatorWorkspace(core.db);
  if (op) return op;
  throw new CliError(
    `no account exists yet, so there is nothing to invite to: the first account registers without an invitation at ${new URL('/sign-up', core.config.SERVICE_APP_ORIGIN)}`,
  );
}

/** Resend and revoke take an id alone. */
async function workspaceOf(core: Core, id: string, wanted: string | undefined): Promise<Workspace> {
  if (wanted) return resolveWorkspace(core, wanted);
  const ws = await invitationWorkspace(core.db, id);
  if (!ws) throw new CliError(`no invitation ${id}`);
  return ws;
}

/** With a relay configured, waits for its outcome. */
async function deliver(ctx: Ctx, inv: IssuedInvitation, ws: Workspace): Promise<IssuedInvitation> {
  const { core } = ctx;
  if (!core.config.SERVICE_INVITATION_EMAIL_URL) return inv;
  await deliverInvitation(ctx.services.invitationDelivery, inv, ws.name);
  const now = (await listInvitations(ctx.deps, ws.id)).find((i) => i.id === inv.id);
  return now ? { ...inv, deliveryStatus: now.deliveryStatus, deliveryDetail: now.deliveryDetail } : inv;
}

function issuedText(verb: string, inv: IssuedInvitation, ws: Workspace): string {
  const lines = [
    `${verb} invitation ${inv.id} for ${inv.email} as ${inv.role} in "${ws.name}" (${ws.id})`,
    `token (shown once, store it now): ${inv.token}`,
    `sign-up link: ${inv.signUpUrl}`,
    `expires: ${inv.expiresAt}`,
  ];
  if (inv.deliveryStatus !== 'not_sent') lines.push(`email: ${inv.deliveryStatus}${inv.deliveryDetail ? ` (${inv.deliveryDetail})` : ''}`);
  for (const old of inv.replacedInvitationIds ?? []) lines.push(`note: this replaces the pending invitation ${old} for the same address; its link no longer works`);
  return lines.join('\n') + '\n';
}

export interface CreateOptions {
  email: string;
  role: string;
  workspace?: string;
  json?: boolean;
}

export function inviteCreate(opts: CreateOptions, io: InviteIo = {}): Promise<void> {
  return run('create', io, async (ctx) => {
    const ws = await resolveWorkspace(ctx.core, opts.workspace);
    const inv = await deliver(ctx, await createInvitation(ctx.deps, ws.id, OPERATOR, { email: opts.email, role: opts.role }), ws);
    ctx.out(opts.json ? JSON.stringify(inv, null, 2) + '\n' : issuedText('created', inv, ws));
  });
}

export function inviteResend(id: string, opts: { workspace?: string; json?: boolean }, io: InviteIo = {}): Promise<void> {
  return run('resend', io, async (ctx) => {
    const ws = await workspaceOf(ctx.core, id, opts.workspace);
    const inv = await deliver(ctx, await resendInvitation(ctx.deps, ws.id, OPERATOR, id), ws);
    ctx.out(opts.json ? JSON.stringify(inv, null, 2) + '\n' : issuedText('resent', inv, ws) + 'the previous token no longer works\n');
  });
}

export function inviteRevoke(id: string, opts: { workspace?: string; json?: boolean }, io: InviteIo = {}): Promise<void> {
  return run('revoke', io, async (ctx) => {
    const ws = await workspaceOf(ctx.core, id, opts.workspace);
    const inv = await revokeInvitation(ctx.deps, ws.id, OPERATOR, id);
    ctx.out(opts.json ? JSON.stringify(inv, null, 2) + '\n' : `revoked invitation ${inv.id} for ${inv.email} in "${ws.name}" (${ws.id})\n`);
  });
}

export function inviteList(opts: { workspace?: string; json?: boolean }, io: InviteIo = {}): Promise<void> {
  return run('list', io, async (ctx) => {
    const ws = await resolveWorkspace(ctx.core, opts.workspace);
    const data = await listInvitations(ctx.deps, ws.id);
    if (opts.json) {
      ctx.out(JSON.stringify({ workspace: ws, data }, null, 2) + '\n');
    } else if ((io.isTTY ?? process.stdout.isTTY) && !noColor(io.env ?? process.env)) {
      const [{ render }, { default: React }, { InvitationsTable }] = await Promise.all([
        import('ink'),
        import('react'),
        import('../ui/invitations-table.ts'),
      ]);
      const app = render(React.createElement(InvitationsTable, { workspace: ws, rows: data, columns: process.stdout.columns }));
      app.unmount();
      await app.waitUntilExit();
    } else {
      ctx.out(plainTable(ws, data, (io.isTTY ?? process.stdout.isTTY) ? process.stdout.columns : undefined));
    }
  });
}

/** https://no-color.org: any non-empty NO_COLOR means plain text. */
const noColor = (env: NodeJS.ProcessEnv) => Boolean(env.NO_COLOR);
