import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { openApiJson } from './document.ts';
import { renderDocs } from './page.ts';
import type { AppEnv } from '../types.ts';

/** Public, the API's shape only (docs/public-endpoints.md); built once per process. */
export function openApiRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Rendered once; each answer only fills in its nonce.
  const SLOT = 'svc-nonce-slot';
  let page: string | undefined;
  app.get('/openapi.json', (c) => c.body(openApiJson(), 200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' }));
  app.get('/docs', (c) => {
    const nonce = randomBytes(16).toString('base64');
    c.header('Content-Security-Policy', `default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`);
    c.header('X-Frame-Options', 'DENY');
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'same-origin');
    c.header('Cache-Control', 'no-cache');
    page ??= renderDocs(JSON.parse(openApiJson()) as Record<string, unknown>, SLOT);
    return c.html(page.replace(SLOT, nonce));
  });
  return app;
}
