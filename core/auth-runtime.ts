import type { Secrets } from './kernel/config/index.ts';
import { defaultThrottles, type LoginThrottles } from './accounts/login.ts';
import { signupThrottle } from './accounts/register.ts';
import type { FailureThrottle } from './accounts/throttle.ts';
import { boundedHasher, type PasswordHasher } from './auth/hasher.ts';
import { CredentialCache } from './credentials/cache.ts';
import { deriveKey } from './auth/keys.ts';
import { OWASP_SCRYPT, type ScryptCost } from './auth/password.ts';

/** Per-process authentication state. */
export interface AuthRuntime {
  /** For stored token hashes (sessions, invitations, credentials). */
  tokenKey: Buffer;
  /** Signs the CSRF double-submit value. */
  csrfKey: Buffer;
  credentialCache: CredentialCache;
  throttles: LoginThrottles;
  /** Refused sign-ups per client address. */
  signups: FailureThrottle;
  scrypt: ScryptCost;
  /** Replaceable before the HTTP app is built (tests count hashes). */
  hasher: PasswordHasher;
}

export function createAuthRuntime(secrets: Secrets, scrypt: ScryptCost = OWASP_SCRYPT): AuthRuntime {
  return {
    tokenKey: deriveKey(secrets.SERVICE_RATE_LIMIT_SECRET, 'token-hash'),
    csrfKey: deriveKey(secrets.SERVICE_SESSION_SECRET, 'csrf'),
    credentialCache: new CredentialCache(),
    throttles: defaultThrottles(),
    signups: signupThrottle(),
    scrypt,
    hasher: boundedHasher({ cost: scrypt }),
  };
}
