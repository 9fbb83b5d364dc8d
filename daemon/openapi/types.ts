import type * as z from 'zod';

/** How a caller authenticates; decides the operation's `security` and the 401/403 it can get. */
export type Auth = 'session+csrf' | 'bearer access token' | 'bearer member key' | 'admin' | 'none' | 'path token' | 'shared secret header';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestDoc {
  /** The zod schema the route itself parses the body with (exported from the route file). */
  schema?: z.ZodType;
  /** Routes that check their body by hand (the gateway's hot path): a JSON Schema written here … */
  jsonSchema?: Record<string, unknown>;
  /** … and the route's own checker, which the tests run the example through. */
  check?: (body: unknown) => unknown;
  /** A body the route accepts (the tests parse it with `schema` or `check`). */
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

/** One documented operation: the registry (operations.ts) lists every route of the API. */
export interface Operation {
  method: Method;
  /** OpenAPI style: `/api/app/agents/{id}`. */
  path: string;
  /** The route template as Hono mounts it, when it is not `path` with `{x}` → `:x`. */
  mounted?: string;
  tag: string;
  summary: string;
  description?: string;
  auth: Auth;
  query?: QueryDoc[];
  request?: RequestDoc;
  /** An example of the success answer (the first 2xx); the examples test compares its shape with a real one. */
  responseExample?: unknown;
  /** Status → what it means. Common errors (400 bad body, 401, CSRF 403) are added by the builder. */
  responses: Record<number, string>;
}
