// /api/app, second half (agents to previews), and the run API under /api/agents.
import { toolRegistry } from '../../core/tools/registry.ts';
import { CreateBody as AgentCreateBody, PatchBody as AgentPatchBody, ShareBody } from '../routes/agents.ts';
import { LinkBody } from '../routes/apps.ts';
import { DecisionBody, StartBody } from '../routes/runs.ts';
import { CreateBody as ShareLinkBody } from '../routes/shares.ts';
import { CreateBody as WorkerCreateBody, PatchBody as WorkerPatchBody } from '../routes/workers.ts';
import type { Operation } from './types.ts';

const S = 'session+csrf' as const;
const R = 'bearer access token' as const;
const TOOLS = [...toolRegistry.keys()].map((t) => `\`${t}\``).join(', ');
const AGENT = '`{id, workspaceId, ownerUserId, name, instructions, providerAccountId, model, tools, settings, sharedWithWorkspace, latestVersion, createdAt, updatedAt}`';
const SHARES = '`{agentId, workspace, userIds}`: who may run it besides its owner.';
const MANAGE = 'The agent\'s owner, or an admin or owner of the workspace; others get 403 (404 when they cannot even see it).';
const TOOL = { type: 'http_request', name: 'http_request', approval: 'always', config: { allowedHosts: ['api.github.com'] } };
const AGENT_EXAMPLE = {
  id: 'agt_…', workspaceId: 'ws_…', ownerUserId: 'usr_…', name: 'Release notes', instructions: 'Summarise the merged pull requests of the week.', providerAccountId: 'pa_…', model: 'lab-vllm/llama-3.1-8b',
  tools: [TOOL], settings: { temperature: 0.2, maxSteps: 8 }, sharedWithWorkspace: false, latestVersion: 0, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
};
const SHARES_EXAMPLE = { agentId: 'agt_…', workspace: false, userIds: ['usr_…'] };
const RUN = '`{runId, conversationId, status, outputText?, approvalId?, error?, errorCode?}` with `X-RateLimit-*` headers.';

export const AGENT_OPERATIONS: Operation[] = [
  {
    method: 'POST', path: '/api/app/agents', tag: 'Agents', auth: S, summary: 'Create an agent draft (member+)',
    description:
      'A draft is private to you until shared. `model` is an id as GET /api/v1/models lists it (`<account slug>/<model>`, e.g. `openai/gpt-4.1-mini` or `local/llama3.2`), served by `providerAccountId` (`pa_local` for the local target); both are checked against the account now, and again at publish. ' +
      `\`tools\`: built-in types ${TOOLS}; \`name\` defaults to the type (unique per agent, letters, digits, \`_\`, \`-\`), \`approval\` to \`never\` (\`always\` stops a run in \`waiting_input\` until someone approves the call), \`config\` is checked by the tool's own schema. ` +
      '`settings`: `temperature` 0–2, `maxSteps`, `maxOutputTokens`. Runs use the latest *published* version, never the draft.',
    request: {
      schema: AgentCreateBody,
      example: {
        name: 'Release notes', instructions: 'Summarise the merged pull requests of the week.', providerAccountId: 'pa_…', model: 'lab-vllm/llama-3.1-8b',
        tools: [{ type: 'http_request', approval: 'always', config: { allowedHosts: ['api.github.com'] } }], settings: { temperature: 0.2, maxSteps: 8 },
      },
    },
    responseExample: AGENT_EXAMPLE,
    responses: { 201: `The agent: ${AGENT}.`, 400: '`unknown_tool`, `invalid_tool_name`, `duplicate_tool_name`, `invalid_tool_config`, `invalid_settings`, `provider_account_invalid`, `model_invalid`, or a schema error.', 403: 'Viewers may not create agents.' },
  },
  {
    method: 'GET', path: '/api/app/agents', tag: 'Agents', auth: S, summary: 'Agents you can see in the workspace',
    query: [{ name: 'all', description: '`1`: every agent of the workspace, private drafts included (admins and owners; ignored otherwise).', schema: { type: 'string', enum: ['1'] } }],
    responses: { 200: '`{data:[agent…]}`, oldest first.' },
  },
  { method: 'GET', path: '/api/app/agents/{id}', tag: 'Agents', auth: S, summary: 'One agent (its draft)', responses: { 200: 'The agent.', 404: 'No such agent, or not visible to you.' } },
  {
    method: 'PATCH', path: '/api/app/agents/{id}', tag: 'Agents', auth: S, summary: 'Edit the draft',
    description: `Every field optional; \`tools\` and \`settings\` replace the whole list/object; \`null\` clears \`providerAccountId\` or \`model\`. Published versions do not change. ${MANAGE}`,
    request: { schema: AgentPatchBody, example: { instructions: 'Summarise the merged pull requests of the week, grouped by area.', settings: { temperature: 0 } } },
    responseExample: { ...AGENT_EXAMPLE, instructions: 'Summarise the merged pull requests of the week, grouped by area.', settings: { temperature: 0 } },
    responses: { 200: 'The agent.', 400: 'As for create.', 403: 'Not yours to change.', 404: 'No such agent.' },
  },
  { method: 'DELETE', path: '/api/app/agents/{id}', tag: 'Agents', auth: S, summary: 'Delete an agent', description: MANAGE, responses: { 204: 'Deleted.', 403: 'Not yours to delete.', 404: 'No such agent.' } },
  {
    method: 'POST', path: '/api/app/agents/{id}/publish', tag: 'Agents', auth: S, summary: 'Publish the draft as the next version',
    description: `Freezes the draft as version N (1, 2, …); runs use the latest published version. The draft needs a provider account and a model that account serves (checked as a run would). No body. ${MANAGE}`,
    responseExample: {
      agentId: 'agt_…', workspaceId: 'ws_…', version: 1, name: 'Release notes', instructions: 'Summarise the merged pull requests of the week, grouped by area.', providerAccountId: 'pa_…',
      model: 'lab-vllm/llama-3.1-8b', tools: [TOOL], settings: { temperature: 0 }, publishedBy: 'usr_…', publishedAt: '2026-01-01T00:00:00.000Z',
    },
    responses: { 201: '`{agentId, workspaceId, version, name, instructions, providerAccountId, model, tools, settings, publishedBy, publishedAt}`.', 400: '`provider_account_invalid` or `model_invalid`: the draft could not run.', 403: 'Not yours to publish.', 404: 'No such agent.', 409: '`publish_conflict`: publish again.' },
  },
  { method: 'GET', path: '/api/app/agents/{id}/versions', tag: 'Agents', auth: S, summary: 'Published versions', responses: { 200: '`{data:[version…]}`.', 404: 'No such agent.' } },
  { method: 'GET', path: '/api/app/agents/{id}/versions/{version}', tag: 'Agents', auth: S, summary: 'One published version', responses: { 200: 'The version.', 404: 'No such agent or version.' } },
  { method: 'GET', path: '/api/app/agents/{id}/shares', tag: 'Agents', auth: S, summary: 'Who the agent is shared with', description: MANAGE, responses: { 200: SHARES, 404: 'No such agent.' } },
  {
    method: 'POST', path: '/api/app/agents/{id}/shares', tag: 'Agents', auth: S, summary: 'Share with a member, or the whole workspace',
    description: `Either \`{userId}\` (a member of the agent's workspace: GET /api/app/members) or \`{workspace:true}\` (every member may run it). Sharing lets others *run* the published agent (with their own access tokens), not edit it. ${MANAGE}`,
    request: { schema: ShareBody, example: { userId: 'usr_…' } },
    responseExample: SHARES_EXAMPLE,
    responses: { 200: SHARES, 400: '`not_a_member`: that user is not in the workspace.', 403: 'Not yours to share.', 404: 'No such agent.' },
  },
  {
    method: 'DELETE', path: '/api/app/agents/{id}/shares', tag: 'Agents', auth: S, summary: 'Stop sharing (same body as sharing)',
    request: { schema: ShareBody, example: { workspace: true } },
    responseExample: SHARES_EXAMPLE,
    responses: { 200: SHARES, 403: 'Not yours to share.', 404: 'No such agent.' },
  },
  {
    method: 'POST', path: '/api/app/agents/{id}/webhook-token', tag: 'Workers', auth: S, summary: 'Issue the agent\'s legacy webhook token',
    description: 'One token per agent (a new one replaces the old), acting as you: POST /api/public/webhooks/agents/{token}. Prefer Workers.',
    responses: { 201: 'The token, once.', 404: 'No such agent.' },
  },
  { method: 'DELETE', path: '/api/app/agents/{id}/webhook-token', tag: 'Workers', auth: S, summary: 'Remove the agent\'s legacy webhook token', responses: { 204: 'Removed.', 404: 'No such agent.' } },

  { method: 'GET', path: '/api/app/conversations', tag: 'Conversations and shares', auth: S, summary: 'Your conversations in the workspace', responses: { 200: '`{data:[…]}`.' } },
  { method: 'GET', path: '/api/app/conversations/{id}', tag: 'Conversations and shares', auth: S, summary: 'One of your conversations with its messages', responses: { 200: 'The conversation.', 404: 'No such conversation of yours.' } },
  {
    method: 'POST', path: '/api/app/shares', tag: 'Conversations and shares', auth: S, summary: 'A public read-only link to one of your runs or conversations',
    request: { schema: ShareLinkBody, example: { kind: 'run', id: 'run_…' } },
    responses: { 201: '`{id, token, url, …}`: the `svc_shr_…` token once; the link is /api/public/share/{token}.', 404: 'No such record of yours.' },
  },
  { method: 'GET', path: '/api/app/shares', tag: 'Conversations and shares', auth: S, summary: 'Your share links', responses: { 200: '`{data:[…]}` with previews.' } },
  { method: 'DELETE', path: '/api/app/shares/{id}', tag: 'Conversations and shares', auth: S, summary: 'Revoke a share link', responses: { 200: 'The revoked link.', 404: 'No such link of yours.' } },

  {
    method: 'POST', path: '/api/app/workers', tag: 'Workers', auth: S, summary: 'Create a Worker: a schedule and/or webhook that runs an agent (member+)',
    description: '`inputTemplate` (alias `inputText`) becomes the run\'s input; `{{body}}` is the webhook body. `schedule`: a cron expression (docs/workers.md). `notifyUrl` gets the outcome. The webhook ref comes back once (`token`, also `webhookRef`).',
    request: { schema: WorkerCreateBody, example: { name: 'Nightly digest', agentId: 'agt_…', inputTemplate: 'Summarise: {{body}}', schedule: '0 6 * * *' } },
    responses: { 201: 'The Worker with `token` and `webhookRef` (once).', 400: 'Bad schedule, template or URL.', 404: 'No such agent you can run.' },
  },
  { method: 'GET', path: '/api/app/workers', tag: 'Workers', auth: S, summary: 'Workers you can see', responses: { 200: '`{data:[…]}`.' } },
  { method: 'GET', path: '/api/app/workers/{id}', tag: 'Workers', auth: S, summary: 'One Worker', responses: { 200: 'The Worker.', 404: 'No such Worker.' } },
  {
    method: 'PATCH', path: '/api/app/workers/{id}', tag: 'Workers', auth: S, summary: 'Change a Worker (its owner or admin+)',
    request: { schema: WorkerPatchBody, example: { enabled: false } },
    responses: { 200: 'The Worker.', 403: 'Not yours to change.', 404: 'No such Worker.' },
  },
  { method: 'DELETE', path: '/api/app/workers/{id}', tag: 'Workers', auth: S, summary: 'Delete a Worker', responses: { 204: 'Deleted.', 403: 'Not yours.', 404: 'No such Worker.' } },
  { method: 'POST', path: '/api/app/workers/{id}/rotate-webhook', tag: 'Workers', auth: S, summary: 'New webhook ref (the old one stops working)', responses: { 200: 'The Worker with the new `token` (once).', 404: 'No such Worker.' } },

  {
    method: 'POST', path: '/api/app/apps/{appId}/preview-links', tag: 'Apps', auth: S, summary: 'A capability link to a generated app on the preview origin',
    description: 'For whoever may read the run that made the app. The body is optional (latest version).',
    request: { schema: LinkBody, optional: true, example: { version: 1 } },
    responses: { 201: '`{url, expiresAt}`.', 404: 'No such app you can read.' },
  },

  {
    method: 'POST', path: '/api/agents/{agentId}/runs', tag: 'Runs', auth: R, summary: 'Start a run of the latest published version',
    description:
      '`inputText` (alias `input`) is required. Without `async` the run executes in the request: 201 with its final status (a failed run is still 201 with `status:"failed"`). `async:true` (or `Prefer: respond-async`) queues it: 202. `conversation:true` starts a conversation, `conversationId` continues one. Rate limited per user (every attempt counts).',
    request: { schema: StartBody, example: { inputText: 'Summarise today', async: true } },
    responses: { 201: RUN, 202: `Queued: ${RUN}`, 404: 'No such agent you can run, or it has no published version.', 429: 'Run-start limit (`Retry-After`).' },
  },
  { method: 'GET', path: '/api/agents/{agentId}/runs', tag: 'Runs', auth: R, summary: 'Your runs of this agent (25, newest first)', responses: { 200: '`{data:[…]}`.' } },
  {
    method: 'GET', path: '/api/agents/{agentId}/runs/{runId}', tag: 'Runs', auth: R, summary: 'One run with steps, events and usage',
    responses: { 200: '`{run:{runId, agentId, agentVersion, conversationId, status, inputText, outputText, …}, steps, events, usage}`.', 404: 'No such run of yours.' },
  },
  {
    method: 'POST', path: '/api/agents/{agentId}/runs/{runId}/approvals/{approvalId}', tag: 'Runs', auth: R, summary: 'Approve or reject a tool call a run waits on',
    description: 'Approve: the run continues (queued runs go back to the queue). Reject: the run ends `cancelled`.',
    request: { schema: DecisionBody, example: { decision: 'approve' } },
    responses: { 200: RUN, 404: 'No such run or approval.', 409: 'Already decided, or the run is not waiting.' },
  },
];
