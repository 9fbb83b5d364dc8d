import { isIPv4, isIPv6 } from 'node:net';

/**
 * Classifies an IP address for the http_request tool's SSRF guard. Everything that is not plainly
 * a public unicast address gets a class naming why it is refused: the tool runs on the host, so a
 * model (or a prompt injection it read) must not reach loopback services, the LAN, or the cloud
 * metadata endpoint. IPv6 forms that embed an IPv4 address (mapped, compatible, NAT64, 6to4) are
 * classified by the embedded address, so `::ffff:127.0.0.1` is loopback, not "IPv6 public".
 */
export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared (CGNAT)'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'documentation'
  | 'unique-local'
  | 'site-local'
  | 'invalid';

type V4Rule = [base: number, bits: number, cls: AddressClass];

const v4 = (a: number, b: number, c: number, d: number) => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;

// Order matters only for overlaps (none here); IANA special-purpose registry, minus the few
// blocks that are globally routable anyway.
const V4_RULES: V4Rule[] = [
  [v4(0, 0, 0, 0), 8, 'unspecified'], // "this network"; connecting to 0.0.0.0 reaches the host itself
  [v4(10, 0, 0, 0), 8, 'private'],
  [v4(100, 64, 0, 0), 10, 'shared (CGNAT)'],
  [v4(127, 0, 0, 0), 8, 'loopback'],
  [v4(169, 254, 0, 0), 16, 'link-local'], // includes 169.254.169.254, the cloud metadata service
  [v4(172, 16, 0, 0), 12, 'private'],
  [v4(192, 0, 0, 0), 24, 'reserved'], // IETF protocol assignments
  [v4(192, 0, 2, 0), 24, 'documentation'],
  [v4(192, 88, 99, 0), 24, 'reserved'], // deprecated 6to4 relay anycast
  [v4(192, 168, 0, 0), 16, 'private'],
  [v4(198, 18, 0, 0), 15, 'reserved'], // benchmarking
  [v4(198, 51, 100, 0), 24, 'documentation'],
  [v4(203, 0, 113, 0), 24, 'documentation'],
  [v4(224, 0, 0, 0), 4, 'multicast'],
  [v4(255, 255, 255, 255), 32, 'broadcast'],
  [v4(240, 0, 0, 0), 4, 'reserved'],
];

function parseV4(ip: string): number | undefined {
  if (!isIPv4(ip)) return undefined;
  const p = ip.split('.').map(Number);
  return v4(p[0]!, p[1]!, p[2]!, p[3]!);
}

export function classifyV4(n: number): AddressClass {
  for (const [base, bits, cls] of V4_RULES) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    if (((n & mask) >>> 0) === base) return cls;
  }
  return 'public';
}

/** Eight 16-bit groups of a valid IPv6 address (embedded dotted IPv4 and `::` expanded). */
function parseV6(ip: string): number[] | undefined {
  const zone = ip.indexOf('%');
  const addr = zone >= 0 ? ip.slice(0, zone) : ip;
  if (!isIPv6(addr)) return undefined;
  let text = addr.toLowerCase();
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const n = parseV4(tail);
    if (n === undefined) return undefined;
    text = `${text.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const hs = head === '' ? [] : head.split(':');
  const ts = rest === undefined || rest === '' ? [] : rest.split(':');
  const fill = rest === undefined ? 0 : 8 - hs.length - ts.length;
  const groups = [...hs, ...Array<string>(fill).fill('0'), ...ts].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : undefined;
}

const embedded = (g: number[], hi: number, lo: number) => ((g[hi]! << 16) | g[lo]!) >>> 0;

export function classifyV6(g: number[]): AddressClass {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const zeroTo = (k: number) => g.slice(0, k).every((x) => x === 0);
  if (zeroTo(8)) return 'unspecified';
  if (zeroTo(7) && g7 === 1) return 'loopback';
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (deprecated compatible): the kernel reaches the IPv4 address.
  if (zeroTo(5) && g5 === 0xffff) return classifyV4(embedded(g, 6, 7));
  if (zeroTo(6)) return classifyV4(embedded(g, 6, 7));
  // ::ffff:0:a.b.c.d (SIIT translated) — same reasoning.
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return classifyV4(embedded(g, 6, 7));
  // 64:ff9b::/96 NAT64: a translator on the path turns it into the embedded IPv4 address.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return classifyV4(embedded(g, 6, 7));
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return 'private'; // 64:ff9b:1::/48 local-use NAT64
  if (g0 === 0x2002) return classifyV4(embedded(g, 1, 2)); // 6to4
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return 'reserved'; // 100::/64 discard
  if (g0 === 0x2001 && g1 === 0) return 'reserved'; // Teredo: embedded address is obfuscated, refuse
  if (g0 === 0x2001 && g1 === 0x0db8) return 'documentation';
  if (g0 === 0x2001 && g1 >= 0x10 && g1 <= 0x1f) return 'reserved'; // ORCHID
  if ((g0 & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xffc0) === 0xfec0) return 'site-local';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  // Global unicast is 2000::/3; everything else is unassigned or special.
  if ((g0 & 0xe000) !== 0x2000) return 'reserved';
  return 'public';
}

/** The class of an IPv4 or IPv6 address (brackets and zone ids accepted); 'invalid' if it is neither. */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const n = parseV4(bare);
  if (n !== undefined) return classifyV4(n);
  const g = parseV6(bare);
  if (g !== undefined) return classifyV6(g);
  return 'invalid';
}
