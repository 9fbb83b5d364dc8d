import { verifyCredential, wrongCredential, type CredentialDeps } from '../../core/credentials/service.ts';
import type { CredentialKind, Principal } from '../../core/credentials/types.ts';
import type { Core } from '../../core/index.ts';

const NAMES: Record<CredentialKind, string> = { access: 'access token (svc_pat_…)', member: 'member key (svc_live_…)', admin: 'admin token (svc_admin_…)' };

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m?.[1];
}

/** The check itself, transport-free (routes/v1/fast-chat.ts uses it too): the principal, or a 401. */
export function bearerAuth(core: Core, deps: CredentialDeps, kind: CredentialKind): (authorization: string | undefined) => Promise<Principal> {
  return async (authorization) => {
    const token = bearerToken(authorization);
    const principal = token ? await verifyCredential(deps, token, kind) : undefined;
    if (!principal) {
      core.metrics.authFailures.inc({ surface: kind, reason: token ? 'invalid' : 'missing' });
      throw wrongCredential(NAMES[kind]);
    }
    return principal;
  };
}
