import { Hono, type Context } from 'hono';
import * as z from 'zod';
import { assertMayActOn } from '../../core/accounts/members.ts';
import { operatorOf } from '../../core/accounts/operators.ts';
import { membership } from '../../core/accounts/workspaces.ts';
import { atLeast } from '../../core/accounts/roles.ts';
import { getCredential, issueCredential, listCredentials, revokeCredential, type CredentialDeps } from '../../core/credentials/service.ts';
import { ADMIN_SCOPES, type CredentialKind, type CredentialView } from '../../core/credentials/types.ts';
import { AppError, forbidden, notFound } from '../../core/kernel/errors.ts';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { readJson } from '../http/json-body.ts';
import { requireRole } from '../middleware/session.ts';
import type { AppEnv } from '../types.ts';

/** Secrets appear once; someone else's credential is a 404, so ids cannot be probed. */

const name = z.string().trim().min(1).max(200);
const expiresAt = z.iso.datetime({ offset: true }).optional();
const positive = z.int().positive();

export const accessTokenBody = z.strictObject({ name, expiresAt });
export const keyBody = z.strictObject({
  name,
  expiresAt,
  limits: z
    .strictObject({ requestsPerMinute: positive.optional(), tokensPerMinute: positive.optional(), tokensPerMonth: positive.optional() })
    .optional(),
});
export const adminTokenBody = z.strictObject({
  name,
  expiresAt,
  scopes: z.array(z.enum(ADMIN_SCOPES)).min(1).max(ADMIN_SCOPES.length),
});

/** Per kind, only the fields that mean something for it. */
function present(v: CredentialView, now: number, workspaceName?: string) {
  const status = v.revokedAt ? 'revoked' : v.expiresAt !== null && Date.parse(v.expiresAt) <= now ? 'expired' : 'active';
  const common = { id: v.id, name: v.name, preview: v.preview, status, createdAt: v.createdAt, expiresAt: v.expiresAt, revokedAt: v.revokedAt, lastUsedAt: v.lastUsedAt };
  if (v.kind === 'member') return { ...common, userId: v.userId, workspaceId: v.workspaceId, workspaceName, limits: v.limits };
  if (v.kind === 'admin') return { ...common, userId: v.userId, scopes: v.scopes };
  return common;
}

const wantsAll = (c: Context<AppEnv>) => c.req.query('all') === '1' || c.req.query('all') === 'true';

export function credentialRoutes(core: Core, services: Services): Hono<AppEnv> {
  const deps = services.credentials;
  const app = new Hono<AppEnv>();
  // id first, then the secret once (DESIGN.md); keys show their workspace's name.
  const wsName = (c: Context<AppEnv>) => (c.get('workspace') as { name: string } | undefined)?.name;
  const created = (c: Context<AppEnv>, v: CredentialView & { token: string }) => {
    const { id, ...rest } = present(v, core.clock.now(), wsName(c));
    return c.json({ id, token: v.token, ...rest }, 201);
  };
  const listed = (c: Context<AppEnv>, rows: CredentialView[]) => c.json({ data: rows.map((v) => present(v, core.clock.now(), wsName(c))) });

  /** 404 unless it exists, has this kind and `may` allows the caller. */
  async function lookup(c: Context<AppEnv>, kind: CredentialKind, may: (v: CredentialView) => boolean | Promise<boolean>) {
    const v = await getCredential(deps, c.req.param('id') ?? '');
    if (!v || v.kind !== kind || !(await may(v))) throw notFound(kind === 'access' ? 'Access token' : kind === 'member' ? 'Key' : 'Admin token');
    return v;
  }

  // Access tokens act as their user in any workspace; each sees only their own.
  app.post('/access-tokens', async (c) => {
    const body = await readJson(c, accessTokenBody);
    return created(c, await issueCredential(deps, { kind: 'access', userId: c.get('user').id, workspaceId: null, name: body.name, expiresAt: body.expiresAt ?? null }));
  });
  app.get('/access-tokens', async (c) => listed(c, await listCredentials(deps, 'access', { userId: c.get('user').id })));
  app.delete('/access-tokens/:id', async (c) => {
    const v = await lookup(c, 'access', (v) => v.userId === c.get('user').id);
    return c.json(present(await revokeCredential(deps, v.id), core.clock.now()));
  });

  // Member keys: one member in the active workspace; members and above.
  app.post('/keys', requireRole('member'), async (c) => {
    const body = await readJson(c, keyBody);
    const limits = Object.fromEntries(Object.entries(body.limits ?? {}).filter(([, n]) => n !== undefined));
    return created(
      c,
      await issueCredential(deps, { kind: 'member', userId: c.get('user').id, workspaceId: c.get('workspace').id, name: body.name, limits, expiresAt: body.expiresAt ?? null }),
    );
  });
  app.get('/keys', requireRole('member'), async (c) => {
    const ws = c.get('workspace');
    if (wantsAll(c) && !atLeast(ws.role, 'admin')) throw forbidden('Listing every key of the workspace needs the admin role or higher.');
    const filter = wantsAll(c) ? { workspaceId: ws.id } : { workspaceId: ws.id, userId: c.get('user').id };
    return listed(c, await listCredentials(deps, 'member', filter));
  });
  app.delete('/keys/:id', requireRole('member'), async (c) => {
    const ws = c.get('workspace');
    const v = await lookup(c, 'member', (v) => v.workspaceId === ws.id && (v.userId === c.get('user').id || atLeast(ws.role, 'admin')));
    await assertMayActOn(core.db, ws.id, { userId: c.get('user').id, role: ws.role }, v.userId); // not an owner's key, as an admin
    return c.json(present(await revokeCredential(deps, v.id), core.clock.now()));
  });

  // Admin tokens: operators only; none revokes a higher role's.
  async function operator(c: Context<AppEnv>): Promise<string> {
    const wsId = await operatorOf(core.db, c.get('user').id);
    if (!wsId) {
      core.metrics.authFailures.inc({ surface: 'operator', reason: 'not_operator' });
      throw new AppError('not_operator', 'Admin tokens are for operators: admins and owners of the operator workspace.');
    }
    return wsId;
  }
  app.post('/admin-tokens', async (c) => {
    const wsId = await operator(c);
    const body = await readJson(c, adminTokenBody);
    const scopes = [...new Set(body.scopes)];
    return created(c, await issueCredential(deps, { kind: 'admin', userId: c.get('user').id, workspaceId: wsId, name: body.name, scopes, expiresAt: body.expiresAt ?? null }));
  });
  app.get('/admin-tokens', async (c) => {
    await operator(c);
    return listed(c, await listCredentials(deps, 'admin', wantsAll(c) ? {} : { userId: c.get('user').id }));
  });
  app.delete('/admin-tokens/:id', async (c) => {
    const wsId = await operator(c);
    const v = await lookup(c, 'admin', () => true);
    const me = await membership(core.db, wsId, c.get('user').id);
    await assertMayActOn(core.db, wsId, { userId: c.get('user').id, role: me?.role ?? 'viewer' }, v.userId);
    return c.json(present(await revokeCredential(deps, v.id), core.clock.now()));
  });

  return app;
}
