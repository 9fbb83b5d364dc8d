import * as z from 'zod';
import { VERSION } from '../../core/kernel/version.ts';
import { OPERATIONS, TAGS } from './operations.ts';
import type { Auth, Operation, RequestDoc } from './types.ts';

type Json = Record<string, unknown>;

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** `/api/app/agents/{id}` → `/api/app/agents/:id` (or the registry's own `mounted` template). */
export const mountedPath = (op: Operation): string => op.mounted ?? op.path.replace(/\{([^}]+)\}/g, ':$1');

/** What a client sends; the inexpressible becomes `{}`, not a failed document. */
export function bodySchema(r: RequestDoc): Json {
  if (r.jsonSchema) return r.jsonSchema;
  if (!r.schema) return {};
  try {
    const { $schema: _, ...schema } = z.toJSONSchema(r.schema, { io: 'input' }) as Json;
    return schema;
  } catch (err) {
    return { description: `Not expressible as JSON Schema (${(err as Error).message}); the route's zod schema decides.` };
  }
}

const AUTH_TEXT: Record<Auth, string> = {
  'session+csrf': 'Session cookie `service_session` (set by POST /api/auth/login).',
  'bearer access token': 'Bearer access token `svc_pat_…` (POST /api/app/access-tokens). A session cookie is refused.',
  'bearer member key': 'Bearer member key `svc_live_…` (POST /api/app/keys). A session cookie is refused.',
  admin: 'An operator session (admin or owner of the operator workspace) or a Bearer admin token `svc_admin_…` with the scope `usage:read`.',
  none: 'None: public.',
  'path token': 'The token in the path is the only credential.',
  'shared secret header': 'Header `x-svc-webhook-secret` = SERVICE_INVITATION_EMAIL_SECRET.',
};

const CSRF_TEXT = ' Also header `x-csrf-token`: the value of the `service_csrf` cookie set beside it.';

function security(op: Operation): Json[] {
  switch (op.auth) {
    case 'session+csrf':
      return [STATE_CHANGING.has(op.method) ? { sessionCookie: [], csrfHeader: [] } : { sessionCookie: [] }];
    case 'bearer access token':
      return [{ accessToken: [] }];
    case 'bearer member key':
      return [{ memberKey: [] }];
    case 'admin':
      return [{ adminToken: ['usage:read'] }, { sessionCookie: [] }];
    case 'shared secret header':
      return [{ webhookSecret: [] }];
    default:
      return [];
  }
}

/** Beside the registry's own statuses. */
function commonErrors(op: Operation): Record<number, string> {
  const out: Record<number, string> = {};
  if (op.request && op.request.contentType === undefined) {
    out[400] = 'The body is not JSON or does not match the schema (the error names the field).';
    out[415] = 'The body is not application/json.';
  }
  if (op.auth === 'session+csrf') out[401] = 'No valid session cookie.';
  if (op.auth === 'session+csrf' && STATE_CHANGING.has(op.method)) out[403] = 'Missing or wrong `x-csrf-token` (code `csrf_failed`), or the role does not allow it.';
  if (op.auth.startsWith('bearer') || op.auth === 'admin' || op.auth === 'shared secret header') out[401] = 'Missing or invalid credential.';
  if (op.auth === 'admin') out[403] = 'Not an operator, or the admin token lacks the scope.';
  return out;
}

function operationId(op: Operation): string {
  const words = `${op.method.toLowerCase()} ${op.path}`.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
}

function operationObject(op: Operation): Json {
  const openai = op.path.startsWith('/api/v1/');
  const params: Json[] = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  for (const q of op.query ?? []) params.push({ name: q.name, in: 'query', required: false, description: q.description, schema: q.schema ?? { type: 'string' } });
  if (op.path.startsWith('/api/app/')) {
    params.push({ name: 'x-workspace-id', in: 'header', required: false, description: 'Act in this workspace (you must be a member) instead of the session\'s active one.', schema: { type: 'string' } });
  }
  const responses: Json = {};
  const all = { ...commonErrors(op), ...op.responses };
  const statuses = Object.keys(all).map(Number).sort((a, b) => a - b);
  const success = statuses.find((st) => st >= 200 && st < 300);
  for (const status of statuses) {
    const r: Json = { description: all[status] };
    if (status >= 400) r.content = { 'application/json': { schema: { $ref: `#/components/schemas/${openai ? 'OpenAIError' : 'Error'}` } } };
    else if (status === success && op.responseExample !== undefined) r.content = { 'application/json': { example: op.responseExample } };
    responses[String(status)] = r;
  }
  const o: Json = {
    operationId: operationId(op),
    tags: [op.tag],
    summary: op.summary,
    description: [op.description, `**Authentication:** ${AUTH_TEXT[op.auth]}${op.auth === 'session+csrf' && STATE_CHANGING.has(op.method) ? CSRF_TEXT : ''}`].filter(Boolean).join('\n\n'),
    'x-svc-auth': op.auth,
  };
  if (params.length > 0) o.parameters = params;
  if (op.request) {
    const r = op.request;
    const media: Json = { schema: bodySchema(r) };
    if (r.example !== undefined) media.example = r.example;
    o.requestBody = { required: !r.optional, ...(r.description ? { description: r.description } : {}), content: { [r.contentType ?? 'application/json']: media } };
  }
  o.responses = responses;
  o.security = security(op);
  return o;
}

const COMPONENTS: Json = {
  securitySchemes: {
    sessionCookie: { type: 'apiKey', in: 'cookie', name: 'service_session', description: 'Set by POST /api/auth/login or /api/auth/register (HttpOnly, SameSite=Lax, Secure in production).' },
    csrfHeader: {
      type: 'apiKey', in: 'header', name: 'x-csrf-token',
      description: 'Signed double-submit: send the value of the `service_csrf` cookie, which sign-in and sign-up set beside the session cookie (readable by scripts; an HMAC of the session). Needed on every state-changing session request.',
    },
    accessToken: { type: 'http', scheme: 'bearer', bearerFormat: 'svc_pat_…', description: 'Access token: the run API (/api/agents), acting as its user. Issued by POST /api/app/access-tokens, shown once.' },
    memberKey: { type: 'http', scheme: 'bearer', bearerFormat: 'svc_live_…', description: 'Member key: the gateway (/api/v1), one member in one workspace. Issued by POST /api/app/keys, shown once.' },
    adminToken: { type: 'http', scheme: 'bearer', bearerFormat: 'svc_admin_…', description: 'Admin token with scopes, operators only: /api/admin. Issued by POST /api/app/admin-tokens, shown once.' },
    webhookSecret: { type: 'apiKey', in: 'header', name: 'x-svc-webhook-secret', description: 'The email relay\'s shared secret (SERVICE_INVITATION_EMAIL_SECRET).' },
  },
  schemas: {
    Error: {
      description: 'Every error under /api except /api/v1. `code` is stable; `field` names the offending input when there is one.',
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message', 'requestId'],
          properties: { code: { type: 'string' }, message: { type: 'string' }, field: { type: 'string' }, requestId: { type: 'string' } },
        },
      },
      example: { error: { code: 'invalid_request', message: 'name: Too small: expected string to have >=1 characters', field: 'name', requestId: 'req_…' } },
    },
    OpenAIError: {
      description: 'Errors under /api/v1, in OpenAI\'s shape.',
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['message', 'type', 'param', 'code'],
          properties: { message: { type: 'string' }, type: { type: 'string' }, param: { type: ['string', 'null'] }, code: { type: ['string', 'null'] } },
        },
      },
      example: { error: { message: 'model is required: a model id from GET /api/v1/models.', type: 'invalid_request_error', param: 'model', code: 'invalid_request' } },
    },
  },
};

const INTRO = `The HTTP API of svc, generated from the zod schemas the routes validate with.

Errors: under /api the body is \`{"error":{"code","message","field?","requestId"}}\`; under /api/v1 OpenAI's \`{"error":{"message","type","param","code"}}\`. Every answer carries \`x-request-id\`. Bad input is a 4xx: invalid JSON 400, wrong content type 415, body over the limit 413, unknown ids 404. Bodies are strict: an unknown field is a 400.

Browser sessions: POST /api/auth/login sets the cookies \`service_session\` and \`service_csrf\`; state-changing /api/app and /api/auth requests send \`x-csrf-token\` with the \`service_csrf\` value. Scripts use Bearer tokens instead: \`svc_pat_\` (run API), \`svc_live_\` (gateway), \`svc_admin_\` (operators).`;

export function openApiDocument(ops: readonly Operation[] = OPERATIONS): Json {
  const paths: Record<string, Json> = {};
  for (const op of ops) (paths[op.path] ??= {})[op.method.toLowerCase()] = operationObject(op);
  return {
    openapi: '3.1.0',
    info: { title: 'svc API', version: VERSION, description: INTRO },
    tags: TAGS,
    paths,
    components: COMPONENTS,
  };
}

let cached: string | undefined;
/** Built once, so every answer is the same bytes. */
export function openApiJson(): string {
  cached ??= JSON.stringify(openApiDocument(), null, 2);
  return cached;
}
