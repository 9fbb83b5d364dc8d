import type { KeyObject } from 'node:crypto';
import type { Clock } from '../kernel/clock.ts';
import type { Queryable } from '../store/types.ts';
import { fileContent, versionEntry } from './repo.ts';
import { verifyPreviewToken, type PreviewClaims } from './token.ts';
import { pathProblem } from './validate.ts';

/** `/p/{token}/{path}`: every failure is the same undefined, so a prober learns nothing. */

export interface PreviewDeps {
  db: Queryable;
  key: KeyObject;
  clock: Clock;
  cache: FileCache;
  tokens: TokenMemo;
}

export interface PreviewFile {
  path: string;
  content: Buffer;
}

/** A request that passed the token and path checks. */
export interface PreviewTarget {
  claims: PreviewClaims;
  /** Undefined: the version's entry file. */
  path: string | undefined;
}

/** `rawPath` still percent-encoded, '' = the entry; no store read. */
export function previewTarget(d: PreviewDeps, token: string, rawPath: string): PreviewTarget | undefined {
  const claims = d.tokens.verify(d.key, token, d.clock.now());
  if (!claims) return undefined;
  if (rawPath === '') return { claims, path: undefined };
  const path = decodePath(rawPath);
  return path === undefined ? undefined : { claims, path };
}

const cacheKey = (c: PreviewClaims, path: string) => `${c.appId}\n${c.version}\n${c.workspaceId}\n${path}`;

/** The hot path answers without a promise. */
export function cachedFile(d: PreviewDeps, t: PreviewTarget): PreviewFile | undefined {
  if (t.path === undefined) return undefined;
  const content = d.cache.get(cacheKey(t.claims, t.path), d.clock.now());
  return content && { path: t.path, content };
}

/** From the store, into the cache. */
export async function loadFile(d: PreviewDeps, t: PreviewTarget): Promise<PreviewFile | undefined> {
  const { appId, version, workspaceId } = t.claims;
  const path = t.path ?? (await versionEntry(d.db, appId, version, workspaceId));
  if (path === undefined) return undefined;
  const key = cacheKey(t.claims, path);
  const hit = d.cache.get(key, d.clock.now());
  if (hit) return { path, content: hit };
  const content = await fileContent(d.db, appId, version, path, workspaceId);
  if (content === undefined) return undefined;
  d.cache.set(key, content, d.clock.now());
  return { path, content };
}

/** previewTarget, then the cache, then the store. */
export async function previewFile(d: PreviewDeps, token: string, rawPath: string): Promise<PreviewFile | undefined> {
  const t = previewTarget(d, token, rawPath);
  if (!t) return undefined;
  return cachedFile(d, t) ?? (await loadFile(d, t));
}

/**
 * A page loads many files under one token, and the HMAC was most of the work.
 * Expiry is checked on every use; forged tokens never enter.
 */
export class TokenMemo {
  readonly #map = new Map<string, PreviewClaims>();
  readonly #max: number;

  constructor(max = 4096) {
    this.#max = max;
  }

  verify(key: KeyObject, token: string, nowMs: number): PreviewClaims | undefined {
    const known = this.#map.get(token);
    if (known) return nowMs < known.exp * 1000 ? known : undefined;
    const claims = verifyPreviewToken(key, token, nowMs);
    if (claims) {
      if (this.#map.size >= this.#max) this.#map.clear();
      this.#map.set(token, claims);
    }
    return claims;
  }
}

/** Undefined for bad escapes, an encoded '/', or a refused path. */
export function decodePath(raw: string): string | undefined {
  const out: string[] = [];
  for (const seg of raw.split('/')) {
    let s: string;
    try {
      s = decodeURIComponent(seg);
    } catch {
      return undefined;
    }
    if (s.includes('/')) return undefined;
    out.push(s);
  }
  const path = out.join('/');
  return pathProblem(path) === undefined ? path : undefined;
}

/** Versions never change; `ttlMs` stops serving a deleted app soon. */
export class FileCache {
  readonly #map = new Map<string, { content: Buffer; at: number }>();
  readonly #maxBytes: number;
  readonly #maxFileBytes: number;
  readonly #ttlMs: number;
  #bytes = 0;

  constructor(opts: { maxBytes?: number; maxFileBytes?: number; ttlMs?: number } = {}) {
    this.#maxBytes = opts.maxBytes ?? 32 * 1024 * 1024;
    this.#maxFileBytes = opts.maxFileBytes ?? 1024 * 1024;
    this.#ttlMs = opts.ttlMs ?? 60_000;
  }

  get(key: string, now: number): Buffer | undefined {
    const e = this.#map.get(key);
    if (e === undefined) return undefined;
    this.#map.delete(key);
    if (now - e.at >= this.#ttlMs) {
      this.#bytes -= e.content.length;
      return undefined;
    }
    this.#map.set(key, e); // most recently used last
    return e.content;
  }

  set(key: string, content: Buffer, now: number): void {
    if (content.length > this.#maxFileBytes) return;
    const old = this.#map.get(key);
    if (old) {
      this.#map.delete(key);
      this.#bytes -= old.content.length;
    }
    this.#map.set(key, { content, at: now });
    this.#bytes += content.length;
    for (const [k, e] of this.#map) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#map.delete(k);
      this.#bytes -= e.content.length;
    }
  }

  get bytes(): number {
    return this.#bytes;
  }
}

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8', htm: 'text/html; charset=utf-8', css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8', mjs: 'text/javascript; charset=utf-8', json: 'application/json', map: 'application/json',
  txt: 'text/plain; charset=utf-8', md: 'text/markdown; charset=utf-8', csv: 'text/csv; charset=utf-8', xml: 'application/xml',
  svg: 'image/svg+xml', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp',
  avif: 'image/avif', ico: 'image/x-icon', wasm: 'application/wasm', woff: 'font/woff', woff2: 'font/woff2', ttf: 'font/ttf',
  otf: 'font/otf', mp3: 'audio/mpeg', wav: 'audio/wav', ogg: 'audio/ogg', mp4: 'video/mp4', webm: 'video/webm', pdf: 'application/pdf',
};

/** Unknown: application/octet-stream, which nosniff makes a download. */
export function contentTypeOf(path: string): string {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  if (dot <= slash + 1) return 'application/octet-stream';
  return TYPES[path.slice(dot + 1).toLowerCase()] ?? 'application/octet-stream';
}
