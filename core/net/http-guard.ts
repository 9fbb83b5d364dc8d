import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { classifyAddress, type AddressClass } from './net-address.ts';

/** Connecting only to the vetted addresses (pinnedLookup) defeats DNS rebinding. */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Injectable so tests can play DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const all = await dnsLookup(hostname, { all: true, order: 'verbatim' });
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Lower case, no brackets, no trailing dot. */
export function normalizeHost(hostname: string): string {
  let h = hostname.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

/** `*.example.com` matches subdomains at any depth, not `example.com` itself. */
export function hostMatches(hostname: string, patterns: readonly string[]): boolean {
  const h = normalizeHost(hostname);
  return patterns.some((raw) => {
    const p = normalizeHost(raw);
    if (p.startsWith('*.')) return h.endsWith(p.slice(1)) && h.length > p.length - 1;
    return h === p;
  });
}

export type Vetted =
  | { ok: true; addresses: ResolvedAddress[] }
  | { ok: false; error: string };

export interface VetOptions {
  allowPrivate: boolean;
  /** Every list must admit the host: an agent narrows, never widens. */
  allowLists: readonly (readonly string[])[];
  resolve: Resolver;
  classify: (ip: string) => AddressClass;
  signal: AbortSignal;
}

/** Refusals come back as text for the model. */
export async function vetUrl(url: URL, o: VetOptions): Promise<Vetted> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, error: `blocked: only http and https URLs are allowed (got ${url.protocol.slice(0, -1)})` };
  }
  if (url.username || url.password) {
    return { ok: false, error: 'blocked: credentials in the URL are not allowed; send an Authorization header instead' };
  }
  const host = normalizeHost(url.hostname);
  for (const list of o.allowLists) {
    if (list.length > 0 && !hostMatches(host, list)) {
      return { ok: false, error: `blocked: host ${host} is not in the allowed hosts (${list.join(', ')})` };
    }
  }
  let addresses: ResolvedAddress[];
  const family = isIP(host);
  if (family !== 0) {
    addresses = [{ address: host, family: family as 4 | 6 }];
  } else {
    try {
      addresses = await abortable(o.resolve(host), o.signal);
    } catch (err) {
      if (o.signal.aborted) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      return { ok: false, error: `could not resolve host ${host} (${code})` };
    }
    if (addresses.length === 0) return { ok: false, error: `could not resolve host ${host} (no addresses)` };
  }
  if (!o.allowPrivate) {
    // One refused address refuses the host: else a rebinding mix could win.
    for (const a of addresses) {
      const cls = o.classify(a.address);
      if (cls !== 'public') {
        const via = a.address === host ? '' : ` resolves to ${a.address}, which`;
        return {
          ok: false,
          error: `blocked: ${host}${via} is not a public address (${cls}); requests to non-public addresses are disabled`,
        };
      }
    }
  }
  return { ok: true, addresses };
}

/** Whatever it is asked, it answers with the vetted addresses. */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const fam = typeof options === 'object' && options ? options.family : undefined;
    const want = fam === 4 || fam === 6 ? addresses.filter((a) => a.family === fam) : addresses;
    const list = want.length > 0 ? want : addresses;
    if (typeof options === 'object' && options?.all) {
      (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, list.map((a) => ({ ...a })));
    } else {
      callback(null, list[0]!.address, list[0]!.family);
    }
  };
}

function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}
