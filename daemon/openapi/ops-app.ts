// /api/app, first half: workspaces to provider accounts and gateway settings.
import { validate as validateConduit } from '../../core/gateway/settings.ts';
import { PROVIDER_IDS } from '../../core/providers/types.ts';
import { accessTokenBody, adminTokenBody, keyBody } from '../routes/credentials.ts';
import { LimitsBody } from '../routes/gateway-settings.ts';
import { createBody as InvitationBody } from '../routes/invitations.ts';
import { RoleBody } from '../routes/members.ts';
import { CreateBody as ProviderCreateBody, PatchBody as ProviderPatchBody } from '../routes/provider-accounts.ts';
import type { Operation, QueryDoc } from './types.ts';

const S = 'session+csrf' as const;
const ALL: QueryDoc = { name: 'all', description: '`1` (or `true`): every one of the workspace, not only yours (admins and owners; any operator for admin tokens).', schema: { type: 'string', enum: ['1', 'true'] } };
const CREDENTIAL = 'The token is in this answer only (`token`, beside `id`); later reads show `preview` (prefix + last 4).';
const PROVIDERS = PROVIDER_IDS.filter((p) => p !== 'local').map((p) => `\`${p}\``).join(', ');
const LIMITS_EXAMPLE = { requestsPerMinute: 600, tokensPerMinute: 200_000, tokensPerMonth: null };

export const APP_OPERATIONS: Operation[] = [
  { method: 'GET', path: '/api/app/workspaces', tag: 'Workspaces', auth: S, summary: 'Your workspaces', responses: { 200: '`{data:[{id,name,role,own,operator}]}`.' } },
  { method: 'GET', path: '/api/app/members', tag: 'Workspaces', auth: S, summary: 'Members of the active workspace', responses: { 200: '`{data:[…]}`.' } },
  {
    method: 'PATCH', path: '/api/app/members/{userId}', tag: 'Workspaces', auth: S, summary: 'Change a member\'s role (admin+)',
    description: 'Admins manage non-owners; only an owner touches owners; the last owner stays.',
    request: { schema: RoleBody, example: { role: 'member' } },
    responses: { 200: 'The member.', 403: 'Your role does not allow it.', 404: 'No such member.', 409: 'The last owner would be demoted.' },
  },
  {
    method: 'DELETE', path: '/api/app/members/{userId}', tag: 'Workspaces', auth: S, summary: 'Remove a member, or leave (your own id)',
    responses: { 204: 'Removed.', 403: 'Your role does not allow it.', 404: 'No such member.', 409: 'The last owner cannot leave.' },
  },

  {
    method: 'POST', path: '/api/app/invitations', tag: 'Invitations', auth: S, summary: 'Invite someone (admin+)',
    description: 'The sign-up link is `{SERVICE_APP_ORIGIN}/sign-up?invite=<token>`. Only an owner may invite an owner. With SERVICE_INVITATION_EMAIL_URL set, the invitation is also handed to the email relay (`deliveryStatus`). Inviting the same email again revokes the earlier pending invitation (its id is in `replacedInvitationIds`).',
    request: { schema: InvitationBody, example: { email: 'grace@example.com', role: 'member' } },
    responseExample: {
      id: 'inv_…', workspaceId: 'ws_…', email: 'grace@example.com', role: 'member', status: 'pending', tokenPreview: 'svc_inv_…tlNy', createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-01-08T00:00:00.000Z',
      usedAt: null, revokedAt: null, deliveryStatus: 'not_sent', deliveryDetail: null, token: 'svc_inv_…', signUpUrl: 'https://svc.example.com/sign-up?invite=svc_inv_…', replacedInvitationIds: [],
    },
    responses: { 201: 'The invitation with `token` (once).', 400: 'Not an email address, or no such role.', 403: 'Viewers and members may not invite; only owners invite owners.', 409: '`already_member`.' },
  },
  { method: 'GET', path: '/api/app/invitations', tag: 'Invitations', auth: S, summary: 'Invitations of the workspace (admin+)', responses: { 200: '`{data:[…]}` with `tokenPreview`, status pending|used|revoked|expired, delivery status.' } },
  { method: 'POST', path: '/api/app/invitations/{id}/resend', tag: 'Invitations', auth: S, summary: 'New token and a new 7-day period (admin+)', responses: { 200: 'The invitation with its new `token`.', 404: 'No such invitation.', 409: 'Already used or revoked.' } },
  { method: 'DELETE', path: '/api/app/invitations/{id}', tag: 'Invitations', auth: S, summary: 'Revoke an invitation (admin+)', responses: { 200: 'The revoked invitation.', 404: 'No such invitation.' } },

  {
    method: 'POST', path: '/api/app/access-tokens', tag: 'Tokens and keys', auth: S, summary: 'Issue an access token (svc_pat_, run API)',
    description: `Acts as you on /api/agents, in any workspace you belong to. ${CREDENTIAL}`,
    request: { schema: accessTokenBody, example: { name: 'ci', expiresAt: '2027-01-01T00:00:00Z' } },
    responses: { 201: '`{id, token, name, preview, status, createdAt, expiresAt, revokedAt, lastUsedAt}`.' },
  },
  { method: 'GET', path: '/api/app/access-tokens', tag: 'Tokens and keys', auth: S, summary: 'Your access tokens', responses: { 200: '`{data:[…]}`.' } },
  { method: 'DELETE', path: '/api/app/access-tokens/{id}', tag: 'Tokens and keys', auth: S, summary: 'Revoke one of your access tokens', responses: { 200: 'The revoked token.', 404: 'Not yours or no such token.' } },
  {
    method: 'POST', path: '/api/app/keys', tag: 'Tokens and keys', auth: S, summary: 'Issue a member key (svc_live_, gateway) in the active workspace (member+)',
    description: `The key sees the models of the workspace it was issued in (the active one, or \`x-workspace-id\`). Optional per-key limits. ${CREDENTIAL}`,
    request: { schema: keyBody, example: { name: 'laptop', limits: { requestsPerMinute: 60, tokensPerMonth: 5_000_000 } } },
    responses: { 201: 'The key with `token` (once), `workspaceId` and `limits`.', 403: 'Viewers hold no keys.' },
  },
  { method: 'GET', path: '/api/app/keys', tag: 'Tokens and keys', auth: S, summary: 'Member keys in the workspace (yours, or all with ?all=1 as admin+)', query: [ALL], responses: { 200: '`{data:[…]}`.', 403: '`all` without the admin role.' } },
  { method: 'DELETE', path: '/api/app/keys/{id}', tag: 'Tokens and keys', auth: S, summary: 'Revoke a member key (yours, or any non-owner\'s as admin+)', responses: { 200: 'The revoked key.', 404: 'Not found or not yours to revoke.' } },
  {
    method: 'POST', path: '/api/app/admin-tokens', tag: 'Tokens and keys', auth: S, summary: 'Issue an admin token (svc_admin_, operators only)',
    description: CREDENTIAL,
    request: { schema: adminTokenBody, example: { name: 'prometheus', scopes: ['usage:read'] } },
    responses: { 201: 'The token with `token` (once) and `scopes`.', 403: '`not_operator`.' },
  },
  { method: 'GET', path: '/api/app/admin-tokens', tag: 'Tokens and keys', auth: S, summary: 'Admin tokens (yours, or all with ?all=1)', query: [ALL], responses: { 200: '`{data:[…]}`.', 403: '`not_operator`.' } },
  { method: 'DELETE', path: '/api/app/admin-tokens/{id}', tag: 'Tokens and keys', auth: S, summary: 'Revoke an admin token', responses: { 200: 'The revoked token.', 403: '`not_operator`, or the holder outranks you.', 404: 'No such token.' } },

  { method: 'GET', path: '/api/app/provider-accounts', tag: 'Provider accounts', auth: S, summary: 'Provider accounts of the workspace (the local target included)', responses: { 200: '`{data:[{id, provider, name, slug, baseUrl, keyPreview, models, enabled, …}]}`. API keys never come back.' } },
  { method: 'GET', path: '/api/app/provider-accounts/{id}', tag: 'Provider accounts', auth: S, summary: 'One provider account', responses: { 200: 'The account.', 404: 'No such account in this workspace.' } },
  {
    method: 'POST', path: '/api/app/provider-accounts', tag: 'Provider accounts', auth: S, summary: 'Connect a provider (admin+)',
    description:
      `\`provider\`: ${PROVIDERS}; \`openai-compatible\` needs \`baseUrl\` (the local target is not created here: it comes from LOCAL_LLM_BASE_URL). ` +
      '`slug` is the prefix of this account\'s model ids (`<slug>/<model>` in /api/v1/models): 1–40 lower-case letters, digits or dashes, not `local` or `service`, unique per workspace. ' +
      'When omitted it is derived from `name` (made unique with a suffix), so two `openai-compatible` accounts need no slug; an explicit slug that is taken is a 409 `slug_taken`. ' +
      '`apiKey` is sealed by the vault and never returned (`keyPreview` only). `models` restricts the account to these ids (else its server\'s list). `baseUrl` must reach a public address unless the operator allowed it (SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS).',
    request: { schema: ProviderCreateBody, example: { provider: 'openai-compatible', name: 'Lab vLLM', baseUrl: 'https://vllm.example.com/v1', apiKey: 'sk-…', models: ['llama-3.1-8b'] } },
    responseExample: {
      id: 'pa_…', workspaceId: 'ws_…', provider: 'openai-compatible', name: 'Lab vLLM', slug: 'lab-vllm', baseUrl: 'https://vllm.example.com/v1', keyPreview: '…4f2a', models: ['llama-3.1-8b'], enabled: true,
      createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
    },
    responses: { 201: 'The account (with its `slug`).', 400: '`invalid_provider`, `invalid_slug`, `base_url_required`, `api_key_required`, `invalid_base_url`, `base_url_not_public`, or a schema error.', 403: 'Needs admin or owner.', 409: '`slug_taken` (an explicit slug).' },
  },
  {
    method: 'PATCH', path: '/api/app/provider-accounts/{id}', tag: 'Provider accounts', auth: S, summary: 'Change a provider account (admin+)',
    description: '`null` clears `apiKey`, `baseUrl` or `models`. The slug does not change (model ids stay stable).',
    request: { schema: ProviderPatchBody, example: { name: 'Lab vLLM (new box)', enabled: true, models: null } },
    responses: { 200: 'The account.', 404: 'No such account.' },
  },
  {
    method: 'POST', path: '/api/app/provider-accounts/{id}/test', tag: 'Provider accounts', auth: S, summary: 'Test the connection (admin+)',
    responses: { 200: '`{ok, accountId, models?, error?:{code,message}, latencyMs}`: a failure is still a 200 with `ok:false` and the reason.', 404: 'No such account.' },
  },
  { method: 'DELETE', path: '/api/app/provider-accounts/{id}', tag: 'Provider accounts', auth: S, summary: 'Remove a provider account (admin+)', responses: { 204: 'Removed.', 404: 'No such account.' } },

  { method: 'GET', path: '/api/app/limits', tag: 'Gateway settings', auth: S, summary: 'Workspace-wide gateway limits', responses: { 200: '`{workspace:{requestsPerMinute, tokensPerMinute, tokensPerMonth}}` (`null`: no limit).' } },
  {
    method: 'PUT', path: '/api/app/limits', tag: 'Gateway settings', auth: S, summary: 'Set workspace-wide gateway limits (admin+)',
    request: { schema: LimitsBody, example: LIMITS_EXAMPLE }, responses: { 200: '`{workspace:{…}}`.' },
  },
  { method: 'GET', path: '/api/app/limits/members/{userId}', tag: 'Gateway settings', auth: S, summary: 'A member\'s gateway limits', responses: { 200: '`{member:{…}}`.', 404: 'No such member.' } },
  {
    method: 'PUT', path: '/api/app/limits/members/{userId}', tag: 'Gateway settings', auth: S, summary: 'Set a member\'s gateway limits (admin+)',
    request: { schema: LimitsBody, example: LIMITS_EXAMPLE }, responses: { 200: '`{member:{…}}`.', 404: 'No such member, or one you may not act on.' },
  },
  { method: 'GET', path: '/api/app/conduit', tag: 'Gateway settings', auth: S, summary: 'service/conduit overrides', responses: { 200: '`{families?:{<family>:[model ids or patterns]}}`.' } },
  {
    method: 'PUT', path: '/api/app/conduit', tag: 'Gateway settings', auth: S, summary: 'Set service/conduit overrides (admin+)',
    description: 'Checked by hand (core/gateway/settings.ts): the schema below is written for this document.',
    request: {
      check: validateConduit,
      jsonSchema: {
        type: 'object', additionalProperties: false,
        properties: {
          families: {
            type: 'object', description: 'Family → up to 50 model ids or `*` patterns, tried in order.',
            propertyNames: { enum: ['code', 'reasoning', 'long_context', 'vision', 'tools', 'fast'] },
            additionalProperties: { type: 'array', maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 200 } },
          },
        },
      },
      example: { families: { code: ['anthropic/claude-*', 'openai/gpt-4.1'], fast: ['local/llama3.2'] } },
    },
    responses: { 200: 'The overrides as stored.' },
  },
];
