import type * as z from 'zod';

/** Decides the operation's `security` and the 401/403 it can get. */
export type Auth = 'session+csrf' | 'bearer access token' | 'bearer member key' | 'admin' | 'none' | 'path token' | 'shared secret header';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestDoc {
  /** The one the route itself parses with. */
  schema?: z.ZodType;
  /** Hand-checked bodies (the gateway's hot path): a JSON Schema … */
  jsonSchema?: Record<string, unknown>;
  /** … and the checker the tests run the example through. */
  check?: (body: unknown) => unknown;
  /** The tests parse it with `schema` or `check`. */
  example?: unknown;
  /** application/json unless said otherwise. */
  contentType?: string;
  /** The body may be left out. */
  optional?: boolean;
  description?: string;
}

export interface QueryDoc {
  name: string;
  description: string;
  schema?: Record<string, unknown>;
}

export interface Operation {
  method: Method;
  /** OpenAPI style: `/api/app/agents/{id}`. */
  path: string;
  /** When Hono's template is not `path` with `{x}` → `:x`. */
  mounted?: string;
  tag: string;
  summary: string;
  description?: string;
  auth: Auth;
  query?: QueryDoc[];
  request?: RequestDoc;
  /** The first 2xx; a test compares its shape with a real answer. */
  responseExample?: unknown;
  /** Common errors (400, 401, CSRF 403) are added by the builder. */
  responses: Record<number, string>;
}
