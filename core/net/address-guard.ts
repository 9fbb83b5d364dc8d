import type { LookupFunction } from 'node:net';
import type { buildConnector } from 'undici';
import { isIP } from 'node:net';
import { hostMatches, normalizeHost, pinnedLookup, systemResolver, type ResolvedAddress, type Resolver } from './http-guard.ts';
import { classifyAddress, parseCidr, type AddressClass } from './net-address.ts';

/** SSRF guard: any workspace admin sets a baseUrl, so only public addresses,
 * vetted after DNS on every connection (docs/providers.md). */

/** Becomes `upstream_address_refused` in errors.ts. */
export const ADDRESS_REFUSED = 'SVC_ADDRESS_REFUSED';

export interface AddressPolicy {
  /** Why the address is refused; undefined when allowed. */
  refusal(hostname: string, address: string): AddressClass | undefined;
}

/** IPs and CIDRs admit addresses under any name; host names admit what they resolve to. */
export function addressPolicy(allowedPrivate: readonly string[]): AddressPolicy {
  const cidrs: ((ip: string) => boolean)[] = [];
  const names: string[] = [];
  for (const entry of allowedPrivate) {
    const m = parseCidr(entry);
    if (m) cidrs.push(m);
    else names.push(entry);
  }
  return {
    refusal(hostname, address) {
      const cls = classifyAddress(address);
      if (cls === 'public') return undefined;
      if (names.length > 0 && isIP(normalizeHost(hostname)) === 0 && hostMatches(hostname, names)) return undefined;
      if (cidrs.some((m) => m(address))) return undefined;
      return cls;
    },
  };
}

export class AddressRefused extends Error {
  readonly code = ADDRESS_REFUSED;
  readonly addressClass: AddressClass;
  constructor(host: string, cls: AddressClass) {
    super(`${host} is not a public address (${cls})`);
    this.name = 'AddressRefused';
    this.addressClass = cls;
  }
}

/** All of `hostname`'s addresses; one refused refuses all. */
export async function vetHost(policy: AddressPolicy, hostname: string, resolve: Resolver = systemResolver): Promise<ResolvedAddress[]> {
  const host = normalizeHost(hostname);
  const family = isIP(host);
  const addresses: ResolvedAddress[] = family !== 0 ? [{ address: host, family: family as 4 | 6 }] : await resolve(host);
  if (addresses.length === 0) throw Object.assign(new Error(`${host} has no addresses`), { code: 'ENOTFOUND' });
  // A rebinding server could hand out a mix and win on connect order.
  for (const a of addresses) {
    const cls = policy.refusal(host, a.address);
    if (cls !== undefined) throw new AddressRefused(host, cls);
  }
  return addresses;
}

/** A connect `lookup` answering only vetted addresses. */
export function guardedLookup(policy: AddressPolicy, resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    vetHost(policy, hostname, resolve).then(
      (addresses) => pinnedLookup(addresses)(hostname, options, callback),
      (err: NodeJS.ErrnoException) => callback(err, '', 4),
    );
  };
}

/** IP literals are checked here: net.connect skips `lookup` for them. */
export function guardedConnect(policy: AddressPolicy, connect: buildConnector.connector): buildConnector.connector {
  return (opts, cb) => {
    const host = normalizeHost(opts.hostname);
    if (isIP(host) !== 0) {
      const cls = policy.refusal(host, host);
      if (cls !== undefined) return cb(new AddressRefused(host, cls), null);
    }
    return connect(opts, cb);
  };
}
