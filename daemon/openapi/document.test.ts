import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import * as z from 'zod';
import { bodySchema, openApiDocument, openApiJson } from './document.ts';
import { OPERATIONS, TAGS } from './operations.ts';

describe('OpenAPI registry and document', () => {
  test('every request example is accepted by the schema or checker the route itself uses', () => {
    const failures: string[] = [];
    let checked = 0;
    for (const op of OPERATIONS) {
      const r = op.request;
      if (!r) continue;
      const json = r.contentType === undefined;
      // A JSON body is described either by the route's zod schema or by the route's own checker.
      if (json) assert.ok(r.schema || r.check, `${op.method} ${op.path}: a JSON body needs schema or check`);
      if (json) assert.notEqual(r.example, undefined, `${op.method} ${op.path}: a JSON body needs an example`);
      if (r.example === undefined) continue;
      checked++;
      if (r.schema) {
        const parsed = r.schema.safeParse(r.example);
        if (!parsed.success) failures.push(`${op.method} ${op.path}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      } else {
        try {
          r.check!(r.example);
        } catch (err) {
          failures.push(`${op.method} ${op.path}: ${(err as Error).message}`);
        }
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(checked >= 30, `examples checked: ${checked}`);
  });

  test('the example check can fail: a wrong example is refused by the same schema', () => {
    const login = OPERATIONS.find((o) => o.method === 'POST' && o.path === '/api/auth/login')!;
    assert.equal(login.request!.schema!.safeParse({ ...(login.request!.example as object), role: 'owner' }).success, false);
    const chat = OPERATIONS.find((o) => o.path === '/api/v1/chat/completions')!;
    assert.throws(() => chat.request!.check!({ model: 'x', messages: [] }));
  });

  test('operations are unique, tagged with a known tag, and their ids are unique', () => {
    const keys = OPERATIONS.map((o) => `${o.method} ${o.path}`);
    assert.deepEqual(keys.filter((k, i) => keys.indexOf(k) !== i), []);
    const tags = new Set(TAGS.map((t) => t.name));
    assert.deepEqual(OPERATIONS.filter((o) => !tags.has(o.tag)).map((o) => o.tag), []);
    const doc = openApiDocument() as { paths: Record<string, Record<string, { operationId: string }>> };
    const ids = Object.values(doc.paths).flatMap((p) => Object.values(p).map((o) => o.operationId));
    assert.equal(new Set(ids).size, OPERATIONS.length);
  });

  test('bodies come from the zod schemas as input JSON Schema; one zod cannot express becomes a described {}', () => {
    const register = OPERATIONS.find((o) => o.path === '/api/auth/register')!;
    const s = bodySchema(register.request!) as { type: string; additionalProperties: boolean; required: string[]; $schema?: string };
    assert.equal(s.type, 'object');
    assert.equal(s.additionalProperties, false, 'strict schemas stay strict');
    assert.deepEqual(s.required, ['email', 'password']);
    assert.equal(s.$schema, undefined);
    assert.deepEqual(bodySchema({ schema: z.string().transform((x) => x.length) }), { type: 'string' }, 'io: input describes what the client sends');
    const fallback = bodySchema({ schema: z.bigint() }) as Record<string, unknown>;
    assert.deepEqual(Object.keys(fallback), ['description']);
    assert.match(String(fallback.description), /Not expressible as JSON Schema/);
  });

  test('the document is OpenAPI 3.1, with the security schemes and error shapes, and the same bytes every time', () => {
    const doc = JSON.parse(openApiJson()) as { openapi: string; components: { securitySchemes: Record<string, { bearerFormat?: string; name?: string }>; schemas: Record<string, unknown> } };
    assert.equal(doc.openapi, '3.1.0');
    const sec = doc.components.securitySchemes;
    assert.equal(sec.csrfHeader!.name, 'x-csrf-token');
    assert.equal(sec.sessionCookie!.name, 'service_session');
    assert.deepEqual([sec.accessToken!.bearerFormat, sec.memberKey!.bearerFormat, sec.adminToken!.bearerFormat], ['svc_pat_…', 'svc_live_…', 'svc_admin_…']);
    assert.ok(doc.components.schemas.Error && doc.components.schemas.OpenAIError);
    assert.equal(JSON.stringify(openApiDocument(), null, 2), openApiJson(), 'a fresh build gives the same bytes');
  });

  test('the document holds together: refs resolve, security names a scheme, path parameters are declared, every operation has a 2xx', () => {
    type Op = { parameters?: Array<{ name: string; in: string }>; responses: Record<string, unknown>; security: Array<Record<string, unknown>> };
    const doc = openApiDocument() as { paths: Record<string, Record<string, Op>>; components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> } };
    const problems: string[] = [];
    for (const ref of JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) {
      if (!doc.components.schemas[ref[1]!]) problems.push(`unresolved $ref ${ref[1]}`);
    }
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const where = `${method} ${path}`;
        for (const req of op.security) for (const name of Object.keys(req)) if (!doc.components.securitySchemes[name]) problems.push(`${where}: unknown scheme ${name}`);
        for (const m of path.matchAll(/\{([^}]+)\}/g)) if (!op.parameters?.some((p) => p.in === 'path' && p.name === m[1])) problems.push(`${where}: {${m[1]}} not declared`);
        if (!Object.keys(op.responses).some((s) => /^2\d\d$/.test(s))) problems.push(`${where}: no 2xx response`);
      }
    }
    assert.deepEqual(problems, []);
  });
});
