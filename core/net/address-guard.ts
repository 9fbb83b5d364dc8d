import type { LookupFunction } from 'node:net';
import type { buildConnector } from 'undici';
import { isIP } from 'node:net';
import { hostMatches, normalizeHost, pinnedLookup, systemResolver, type ResolvedAddress, type Resolver } from './http-guard.ts';
import { classifyAddress, parseCidr, type AddressClass } from './net-address.ts';

/**
 * The SSRF guard of provider base URLs. Any admin of any workspace (in open mode: anyone) can point
 * an account at a URL, and the gateway then calls it from the host: without this guard that reaches
 * loopback services, the LAN and the cloud metadata endpoint. The rule is the http_request tool's
 * (net-address.ts): only globally reachable addresses, checked on every new connection after DNS
 * (the socket connects to exactly the vetted addresses). The operator's own LOCAL_LLM_BASE_URL is
 * exempt, and SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS names LAN model servers that may be private.
 */

/** Error code of a connection the guard refused (errors.ts maps it to `upstream_address_refused`). */
export const ADDRESS_REFUSED = 'SVC_ADDRESS_REFUSED';

export interface AddressPolicy {
  /** Why connecting `hostname` at `address` is refused, or undefined when it is allowed. */
  refusal(hostname: string, address: string): AddressClass | undefined;
}

/**
 * From the allowlist's entries: IP addresses and CIDRs admit the addresses they cover (whatever
 * name led there); host names (`llm.lan`, `*.lan`) admit whatever their name resolves to.
 */
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

/** Every address `hostname` has (the literal itself for an IP), refused if any one is. */
export async function vetHost(policy: AddressPolicy, hostname: string, resolve: Resolver = systemResolver): Promise<ResolvedAddress[]> {
  const host = normalizeHost(hostname);
  const family = isIP(host);
  const addresses: ResolvedAddress[] = family !== 0 ? [{ address: host, family: family as 4 | 6 }] : await resolve(host);
  if (addresses.length === 0) throw Object.assign(new Error(`${host} has no addresses`), { code: 'ENOTFOUND' });
  // One refused address refuses the host: a rebinding server could hand out a mix and win
  // whenever the connect order favours the bad one.
  for (const a of addresses) {
    const cls = policy.refusal(host, a.address);
    if (cls !== undefined) throw new AddressRefused(host, cls);
  }
  return addresses;
}

/** A `lookup` for net/tls connect that resolves, vets, and answers with the vetted addresses only. */
export function guardedLookup(policy: AddressPolicy, resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    vetHost(policy, hostname, resolve).then(
      (addresses) => pinnedLookup(addresses)(hostname, options, callback),
      (err: NodeJS.ErrnoException) => callback(err, '', 4),
    );
  };
}

/**
 * Wraps an undici connector: an IP-literal origin is checked here (net.connect skips `lookup` for
 * IP literals), a name through `lookup` (guardedLookup, given to the connector when it was built).
 */
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
