import type { User, WorkspaceRef } from '../core/accounts/types.ts';
import type { Principal } from '../core/credentials/types.ts';

/** Set by the daemon's middleware; Hono types never leave daemon/. */
export interface AppEnv {
  Variables: {
    /** In `x-request-id`, every error body and every log line. */
    requestId: string;
    /** Set by notFound: the access log reports no route template. */
    unmatched: boolean;
    /** The signed-in user (session routes). */
    user: User;
    /** The raw session token from the cookie (logout, CSRF). */
    sessionToken: string;
    /** The workspace the session was switched to (null: the user's own). */
    sessionWorkspaceId: string | null;
    /** The workspace the request acts in, with the caller's role there. */
    workspace: WorkspaceRef;
    /** The verified bearer credential (run API, gateway, admin tokens). */
    principal: Principal;
    /** x-ratelimit-* headers for this response (gateway), applied to errors too. */
    rateHeaders: Record<string, string>;
  };
}
