import { isIPv4, isIPv6 } from 'node:net';
import { IPV4_OTHER, IPV4_SPECIAL, IPV6_OTHER, IPV6_SPECIAL, type AddressClass, type SpecialBlock } from './special-addresses.ts';

/**
 * For the SSRF guards: only global unicast is 'public' (docs/providers.md).
 * Embedded IPv4 is judged as IPv4: `::ffff:127.0.0.1` is loopback.
 */
export type { AddressClass } from './special-addresses.ts';

const v4 = (a: number, b: number, c: number, d: number) => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;

function parseV4(ip: string): number | undefined {
  if (!isIPv4(ip)) return undefined;
  const p = ip.split('.').map(Number);
  return v4(p[0]!, p[1]!, p[2]!, p[3]!);
}

/** Embedded dotted IPv4 and `::` expanded. */
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

// ---- the registries as prefix rules, longest prefix first ----

interface V4Rule { base: number; bits: number; entry: SpecialBlock }
interface V6Rule { base: number[]; bits: number; entry: SpecialBlock }

const maskOf = (bits: number) => (bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0);

function v4Rules(list: readonly SpecialBlock[]): V4Rule[] {
  return list
    .map((entry) => {
      const [ip, len] = entry.block.split('/') as [string, string];
      const base = parseV4(ip);
      if (base === undefined) throw new Error(`bad IPv4 block ${entry.block}`);
      return { base, bits: Number(len), entry };
    })
    .sort((a, b) => b.bits - a.bits);
}

function v6Rules(list: readonly SpecialBlock[]): V6Rule[] {
  return list
    .map((entry) => {
      const [ip, len] = entry.block.split('/') as [string, string];
      const base = parseV6(ip);
      if (base === undefined) throw new Error(`bad IPv6 block ${entry.block}`);
      return { base, bits: Number(len), entry };
    })
    .sort((a, b) => b.bits - a.bits);
}

const V4_RULES = v4Rules([...IPV4_SPECIAL, ...IPV4_OTHER]);
const V6_RULES = v6Rules([...IPV6_SPECIAL, ...IPV6_OTHER]);

function inV6(g: number[], r: V6Rule): boolean {
  let left = r.bits;
  for (let i = 0; i < 8 && left > 0; i++, left -= 16) {
    const m = left >= 16 ? 0xffff : (0xffff << (16 - left)) & 0xffff;
    if ((g[i]! & m) !== (r.base[i]! & m)) return false;
  }
  return true;
}

const verdict = (e: SpecialBlock): AddressClass => (e.globallyReachable === true ? 'public' : e.cls);

export function classifyV4(n: number): AddressClass {
  for (const r of V4_RULES) if (((n & maskOf(r.bits)) >>> 0) === r.base) return verdict(r.entry);
  return 'public';
}

const embedded = (g: number[], hi: number, lo: number) => ((g[hi]! << 16) | g[lo]!) >>> 0;

export function classifyV6(g: number[]): AddressClass {
  const [g0, g1, g2, g3, g4, g5] = g as [number, number, number, number, number, number];
  const zeroTo = (k: number) => g.slice(0, k).every((x) => x === 0);
  // Forms that reach an IPv4 destination are judged by it.
  if (!zeroTo(7) || g[7]! > 1) {
    // Mapped and deprecated compatible; :: and ::1 are themselves.
    if (zeroTo(5) && g5 === 0xffff) return classifyV4(embedded(g, 6, 7));
    if (zeroTo(6)) return classifyV4(embedded(g, 6, 7));
    // ::ffff:0:a.b.c.d (SIIT translated).
    if (zeroTo(4) && g4 === 0xffff && g5 === 0) return classifyV4(embedded(g, 6, 7));
    // 64:ff9b::/96 NAT64 (well-known prefix).
    if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return classifyV4(embedded(g, 6, 7));
    if (g0 === 0x2002) return classifyV4(embedded(g, 1, 2)); // 6to4
  }
  for (const r of V6_RULES) if (inV6(g, r)) return verdict(r.entry);
  // Global unicast is 2000::/3; everything else is unassigned.
  if ((g0 & 0xe000) !== 0x2000) return 'reserved';
  return 'public';
}

/** Brackets and zone ids accepted. */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const n = parseV4(bare);
  if (n !== undefined) return classifyV4(n);
  const g = parseV6(bare);
  if (g !== undefined) return classifyV6(g);
  return 'invalid';
}

/** A CIDR or bare address as a matcher; undefined if malformed. */
export function parseCidr(text: string): ((ip: string) => boolean) | undefined {
  const slash = text.indexOf('/');
  const ip = slash < 0 ? text : text.slice(0, slash);
  const lenText = slash < 0 ? undefined : text.slice(slash + 1);
  if (lenText !== undefined && !/^\d{1,3}$/.test(lenText)) return undefined;
  const n4 = parseV4(ip);
  if (n4 !== undefined) {
    const bits = lenText === undefined ? 32 : Number(lenText);
    if (bits > 32) return undefined;
    const m = maskOf(bits);
    return (addr) => {
      const a = parseV4(addr) ?? mappedV4(addr);
      return a !== undefined && ((a & m) >>> 0) === ((n4 & m) >>> 0);
    };
  }
  const g = parseV6(ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip);
  if (g === undefined) return undefined;
  const bits = lenText === undefined ? 128 : Number(lenText);
  if (bits > 128) return undefined;
  const rule: V6Rule = { base: g, bits, entry: IPV6_OTHER[0]! };
  return (addr) => {
    const a = parseV6(addr.startsWith('[') && addr.endsWith(']') ? addr.slice(1, -1) : addr);
    return a !== undefined && inV6(a, rule);
  };
}

/** So an IPv4 allowlist entry also admits its mapped form. */
function mappedV4(addr: string): number | undefined {
  const g = parseV6(addr.startsWith('[') && addr.endsWith(']') ? addr.slice(1, -1) : addr);
  if (!g || !g.slice(0, 5).every((x) => x === 0) || g[5] !== 0xffff) return undefined;
  return embedded(g, 6, 7);
}
