// /api/auth, and every surface without a session.
import { deliveryResult } from '../routes/public-webhooks.ts';
import { PasswordBody, SwitchBody } from '../routes/account.ts';
import { LoginBody, RegisterBody, ResetBody } from '../routes/auth.ts';
import type { Operation } from './types.ts';

const ACCOUNT_EXAMPLE = { user: { id: 'usr_…', email: 'ada@example.com', name: 'Ada' }, workspaces: [{ id: 'ws_…', name: "Ada's workspace", role: 'owner' }] };
const ACCOUNT = 'The account: `{"user":{"id","email","name"},"workspaces":[{"id","name","role"}]}`; sets the cookies `service_session` (HttpOnly) and `service_csrf` (send its value as `x-csrf-token` on state-changing requests).';

export const AUTH_OPERATIONS: Operation[] = [
  {
    method: 'POST', path: '/api/auth/register', tag: 'Auth', auth: 'none',
    summary: 'Sign up (and sign in)',
    description:
      'The first account of an empty store becomes the owner of the operator workspace. After that `SERVICE_REGISTRATION_MODE` decides: `invite_only` needs the `invitationToken` issued for the same email (the session then acts in the inviting workspace), `open` lets anyone in. Every account also owns a workspace of its own. `name` defaults to the part of the email before `@`. Refusals are throttled per client address.',
    request: { schema: RegisterBody, example: { email: 'ada@example.com', password: 'correct horse battery', name: 'Ada', invitationToken: 'svc_inv_…' } },
    responseExample: ACCOUNT_EXAMPLE,
    responses: { 201: ACCOUNT, 403: 'Invitation missing, invalid, or for another email.', 409: 'The email is taken.', 429: 'Too many refused sign-ups from this address (`Retry-After`).', 503: '`auth_busy`: too many password hashes waiting (`Retry-After`).' },
  },
  {
    method: 'POST', path: '/api/auth/login', tag: 'Auth', auth: 'none',
    summary: 'Sign in',
    description:
      'Body: the email (any case; it is normalised) and the password. On success the response sets `service_session` (HttpOnly, SameSite=Lax, Secure in production) and `service_csrf` (readable); a session the browser already held is ended first. Scripts that need no browser should use a Bearer token instead (`POST /api/app/access-tokens`, `/api/app/keys`).',
    request: { schema: LoginBody, example: { email: 'ada@example.com', password: 'correct horse battery' } },
    responseExample: ACCOUNT_EXAMPLE,
    responses: { 200: ACCOUNT, 401: 'Wrong email or password (`invalid_credentials`).', 429: '`too_many_attempts`: 10 wrong passwords per account or 30 per address in 15 minutes (`Retry-After`).', 503: '`auth_busy` (`Retry-After`).' },
  },
  {
    method: 'POST', path: '/api/auth/reset-password', tag: 'Auth', auth: 'none',
    summary: 'Set a new password with a one-time reset link',
    description: 'The token comes from `svc user reset-password --email E` (valid an hour, single use). Every session of the account ends.',
    request: { schema: ResetBody, example: { token: 'svc_rst_…', newPassword: 'a brand new password' } },
    responses: { 204: 'Password set; every session ended.', 400: 'The new password is too short or too long.', 403: '`reset_link_invalid`: unknown, used or expired link (one answer for all).' },
  },
  {
    method: 'POST', path: '/api/auth/logout', tag: 'Auth', auth: 'session+csrf',
    summary: 'Sign out this session',
    responses: { 204: 'Session ended; cookies cleared.' },
  },
  {
    method: 'GET', path: '/api/auth/session', tag: 'Auth', auth: 'session+csrf',
    summary: 'The signed-in user, their workspaces and the active one',
    responses: { 200: '`{user, workspaces:[{id,name,role}], activeWorkspaceId}`.', 401: 'Not signed in.' },
  },
  {
    method: 'PATCH', path: '/api/auth/session', tag: 'Auth', auth: 'session+csrf',
    summary: 'Switch the active workspace',
    description: 'Remembered on the session: later /api/app requests act there unless they send `x-workspace-id`.',
    request: { schema: SwitchBody, example: { workspaceId: 'ws_…' } },
    responses: { 200: '`{activeWorkspace:{id,name,role}}`.', 403: '`not_a_member` of that workspace (or CSRF).' },
  },
  {
    method: 'POST', path: '/api/auth/password', tag: 'Auth', auth: 'session+csrf',
    summary: 'Change the password',
    description: 'Needs the current password; every other session of the account ends, this one stays.',
    request: { schema: PasswordBody, example: { currentPassword: 'correct horse battery', newPassword: 'a brand new password' } },
    responses: { 200: '`{sessionsEnded}`: how many other sessions ended.', 400: 'Wrong current password or unacceptable new one.' },
  },
  {
    method: 'POST', path: '/api/auth/logout-all', tag: 'Auth', auth: 'session+csrf',
    summary: 'Sign out everywhere',
    responses: { 200: '`{sessionsEnded}`; this session too, cookies cleared.' },
  },

  { method: 'GET', path: '/api/health', tag: 'Health', auth: 'none', summary: 'Liveness', description: 'Answers from the process alone, for any Host.', responses: { 200: '`{"status":"ok"}`.' } },
  { method: 'GET', path: '/api/health/live', tag: 'Health', auth: 'none', summary: 'Liveness (alias)', responses: { 200: '`{"status":"ok"}`.' } },
  {
    method: 'GET', path: '/api/health/ready', tag: 'Health', auth: 'none', summary: 'Readiness: store reachable and migrated',
    responses: { 200: '`{status:"ready", checks}`.', 503: '`{status:"not_ready", checks, reasons}`.' },
  },

  {
    method: 'GET', path: '/api/activation', tag: 'Public', auth: 'none', summary: 'Activation milestones of every workspace',
    description: 'Milestones only (docs/public-endpoints.md): `[{workspaceId, activated, milestones:{providerConnected, agentPublished, firstRunCompleted, memberInvited}}]`.',
    responses: { 200: 'The list.' },
  },
  {
    method: 'GET', path: '/api/activation/{workspaceId}', tag: 'Public', auth: 'none', summary: 'Activation milestones of one workspace',
    responses: { 200: 'One entry.', 404: 'No such workspace.' },
  },
  {
    method: 'GET', path: '/api/public/share/{token}', tag: 'Public', auth: 'path token', summary: 'A shared run or conversation, read-only',
    description: 'The `svc_shr_…` token from POST /api/app/shares. `Cache-Control: no-store`, `Referrer-Policy: no-referrer`.',
    responses: { 200: 'The shared record (no user ids, emails or instructions).', 404: 'Malformed, unknown, revoked or deleted (one identical answer).' },
  },
  {
    method: 'POST', path: '/api/public/webhooks/invitation-email', tag: 'Public', auth: 'shared secret header',
    summary: 'The email relay reports an invitation\'s delivery',
    request: { schema: deliveryResult, example: { invitationId: 'inv_…', status: 'delivered' } },
    responses: { 204: 'Recorded.' },
  },
  {
    method: 'POST', path: '/api/public/webhooks/workers/{webhookRef}', tag: 'Public', auth: 'path token',
    summary: 'Trigger a Worker',
    description: 'The Worker\'s webhook ref is the credential (checked before the body is read). Any content type, up to 64 KiB; the body is handed to the Worker\'s input template. A run is queued as the Worker\'s owner, with their run-start rate limit.',
    request: { contentType: '*/*', optional: true, description: 'Anything: passed to the input template as text.' },
    responses: { 202: '`{runId, conversationId, status:"queued"}`.', 404: 'Unknown or disabled ref (one identical answer).', 413: 'Body over the limit.', 429: 'The owner\'s run-start limit (`Retry-After`).' },
  },
  {
    method: 'POST', path: '/api/public/webhooks/agents/{token}', tag: 'Public', auth: 'path token',
    summary: 'Trigger an agent (legacy webhook token)',
    description: 'As the Worker trigger, with a per-agent token from POST /api/app/agents/{id}/webhook-token; the run acts as the user who issued it.',
    request: { contentType: '*/*', optional: true, description: 'Anything: becomes the run\'s input text.' },
    responses: { 202: '`{runId, conversationId, status:"queued"}`.', 404: 'Unknown token (one identical answer).', 413: 'Body over the limit.', 429: 'Run-start limit (`Retry-After`).' },
  },

  {
    method: 'GET', path: '/api/admin/metrics', tag: 'Admin', auth: 'admin', summary: 'Prometheus metrics',
    responses: { 200: 'Prometheus text exposition format.' },
  },

  {
    method: 'GET', path: '/api/openapi.json', tag: 'Reference', auth: 'none', summary: 'This document (OpenAPI 3.1)',
    description: 'Generated from the routes\' own zod schemas; reveals the API\'s shape only.',
    responses: { 200: 'The OpenAPI document.' },
  },
  { method: 'GET', path: '/api/docs', tag: 'Reference', auth: 'none', summary: 'This document as an HTML page', responses: { 200: 'HTML.' } },
];
