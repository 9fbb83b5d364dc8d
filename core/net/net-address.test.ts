import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { classifyAddress, parseCidr, type AddressClass } from './net-address.ts';
import { IPV4_OTHER, IPV4_SPECIAL, IPV6_OTHER, IPV6_SPECIAL } from './special-addresses.ts';

const TABLE: [string, AddressClass][] = [
  // IPv4 public
  ['1.1.1.1', 'public'],
  ['8.8.8.8', 'public'],
  ['93.184.216.34', 'public'],
  ['9.255.255.255', 'public'],
  ['11.0.0.0', 'public'],
  ['100.63.255.255', 'public'],
  ['100.128.0.0', 'public'],
  ['126.255.255.255', 'public'],
  ['128.0.0.0', 'public'],
  ['169.253.255.255', 'public'],
  ['169.255.0.0', 'public'],
  ['172.15.255.255', 'public'],
  ['172.32.0.0', 'public'],
  ['192.167.255.255', 'public'],
  ['192.169.0.0', 'public'],
  ['223.255.255.255', 'public'],
  // 0.0.0.0/8
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  // private
  ['10.0.0.0', 'private'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.0', 'private'],
  ['172.20.1.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.0.0', 'private'],
  ['192.168.1.1', 'private'],
  ['192.168.255.255', 'private'],
  // CGNAT
  ['100.64.0.0', 'shared (CGNAT)'],
  ['100.64.0.1', 'shared (CGNAT)'],
  ['100.127.255.255', 'shared (CGNAT)'],
  // loopback
  ['127.0.0.1', 'loopback'],
  ['127.0.0.0', 'loopback'],
  ['127.1.2.3', 'loopback'],
  ['127.255.255.255', 'loopback'],
  // link-local incl. metadata
  ['169.254.0.0', 'link-local'],
  ['169.254.169.254', 'link-local'],
  ['169.254.255.255', 'link-local'],
  // reserved / documentation / multicast / broadcast
  ['192.0.0.8', 'reserved'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  // IPv6 public
  ['2606:4700:4700::1111', 'public'],
  ['2001:4860:4860::8888', 'public'],
  ['2a00:1450:4001:81c::200e', 'public'],
  ['[2606:4700:4700::1111]', 'public'],
  // IPv6 special
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['fdff:ffff::', 'unique-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['ff05::2', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['2001::1', 'reserved'], // Teredo
  ['2001:10::1', 'reserved'], // ORCHID
  ['100::1', 'reserved'],
  ['4000::1', 'reserved'],
  ['64:ff9b:1::1', 'private'],
  // IPv6 forms embedding IPv4
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['[::ffff:7f00:1]', 'loopback'],
  ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:a9fe:a9fe', 'link-local'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:100.64.0.1', 'shared (CGNAT)'],
  ['::ffff:8.8.8.8', 'public'],
  ['::127.0.0.1', 'loopback'],
  ['::10.0.0.1', 'private'],
  ['::ffff:0:127.0.0.1', 'loopback'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::a9fe:a9fe', 'link-local'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:c0a8:101::1', 'private'],
  ['2002:808:808::1', 'public'],
  // not addresses
  ['localhost', 'invalid'],
  ['', 'invalid'],
  ['1.2.3', 'invalid'],
  ['256.1.1.1', 'invalid'],
  ['01.2.3.4', 'invalid'],
  ['::ffff:1.2.3.256', 'invalid'],
  ['1::2::3', 'invalid'],
  ['example.com', 'invalid'],
];

describe('classifyAddress', () => {
  for (const [ip, want] of TABLE) {
    it(`${ip || '(empty)'} → ${want}`, () => assert.equal(classifyAddress(ip), want));
  }

  it('every address of each special IPv4 /8 sampled is refused, and its neighbours are public', () => {
    // Sweep the second octet at /16 granularity across the ranges whose edges matter most.
    for (let b = 0; b < 256; b++) {
      assert.equal(classifyAddress(`10.${b}.7.7`), 'private');
      assert.equal(classifyAddress(`127.${b}.7.7`), 'loopback');
      assert.equal(classifyAddress(`172.${b}.7.7`), b >= 16 && b <= 31 ? 'private' : 'public');
      assert.equal(classifyAddress(`100.${b}.7.7`), b >= 64 && b <= 127 ? 'shared (CGNAT)' : 'public');
      assert.equal(classifyAddress(`::ffff:172.${b}.7.7`), b >= 16 && b <= 31 ? 'private' : 'public');
    }
  });
});

// Issue 12 item 13: every block of the IANA special-purpose registries, by hand (first and last
// address of each, and the nearest public neighbours where they exist), so a table that lost or
// mistyped a block fails here rather than in production.
const IANA_BLOCKS: [block: string, first: string, last: string, want: AddressClass][] = [
  // IPv4 registry
  ['0.0.0.0/8', '0.0.0.0', '0.255.255.255', 'unspecified'],
  ['0.0.0.0/32', '0.0.0.0', '0.0.0.0', 'unspecified'],
  ['10.0.0.0/8', '10.0.0.0', '10.255.255.255', 'private'],
  ['100.64.0.0/10', '100.64.0.0', '100.127.255.255', 'shared (CGNAT)'],
  ['127.0.0.0/8', '127.0.0.0', '127.255.255.255', 'loopback'],
  ['169.254.0.0/16', '169.254.0.0', '169.254.255.255', 'link-local'],
  ['172.16.0.0/12', '172.16.0.0', '172.31.255.255', 'private'],
  ['192.0.0.0/24', '192.0.0.0', '192.0.0.255', 'reserved'],
  ['192.0.0.0/29', '192.0.0.0', '192.0.0.7', 'reserved'],
  ['192.0.0.8/32', '192.0.0.8', '192.0.0.8', 'reserved'],
  ['192.0.0.9/32', '192.0.0.9', '192.0.0.9', 'public'], // PCP anycast: globally reachable
  ['192.0.0.10/32', '192.0.0.10', '192.0.0.10', 'public'], // TURN anycast: globally reachable
  ['192.0.0.170/32', '192.0.0.170', '192.0.0.170', 'reserved'],
  ['192.0.0.171/32', '192.0.0.171', '192.0.0.171', 'reserved'],
  ['192.0.2.0/24', '192.0.2.0', '192.0.2.255', 'documentation'],
  ['192.31.196.0/24', '192.31.196.0', '192.31.196.255', 'public'], // AS112-v4
  ['192.52.193.0/24', '192.52.193.0', '192.52.193.255', 'public'], // AMT
  ['192.88.99.0/24', '192.88.99.0', '192.88.99.255', 'reserved'], // deprecated: not said reachable
  ['192.88.99.2/32', '192.88.99.2', '192.88.99.2', 'reserved'],
  ['192.168.0.0/16', '192.168.0.0', '192.168.255.255', 'private'],
  ['192.175.48.0/24', '192.175.48.0', '192.175.48.255', 'public'], // AS112 direct delegation
  ['198.18.0.0/15', '198.18.0.0', '198.19.255.255', 'reserved'],
  ['198.51.100.0/24', '198.51.100.0', '198.51.100.255', 'documentation'],
  ['203.0.113.0/24', '203.0.113.0', '203.0.113.255', 'documentation'],
  ['240.0.0.0/4', '240.0.0.0', '255.255.255.254', 'reserved'],
  ['255.255.255.255/32', '255.255.255.255', '255.255.255.255', 'broadcast'],
  ['224.0.0.0/4', '224.0.0.0', '239.255.255.255', 'multicast'],
  // IPv6 registry
  ['::1/128', '::1', '::1', 'loopback'],
  ['::/128', '::', '::', 'unspecified'],
  ['::ffff:0:0/96', '::ffff:0.0.0.0', '::ffff:0.255.255.255', 'unspecified'], // judged by the IPv4 inside
  ['64:ff9b::/96', '64:ff9b::7f00:0', '64:ff9b::7fff:ffff', 'loopback'], // ditto: 127.0.0.0 … 127.255.255.255
  ['64:ff9b:1::/48', '64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'private'],
  ['100::/64', '100::', '100::ffff:ffff:ffff:ffff', 'reserved'],
  ['100:0:0:1::/64', '100:0:0:1::', '100:0:0:1:ffff:ffff:ffff:ffff', 'reserved'],
  ['2001::/23', '2001:100::', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['2001::/32', '2001::', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'], // Teredo
  ['2001:1::1/128', '2001:1::1', '2001:1::1', 'public'],
  ['2001:1::2/128', '2001:1::2', '2001:1::2', 'public'],
  ['2001:1::3/128', '2001:1::3', '2001:1::3', 'public'],
  ['2001:2::/48', '2001:2::', '2001:2:0:ffff:ffff:ffff:ffff:ffff', 'reserved'], // benchmarking
  ['2001:3::/32', '2001:3::', '2001:3:ffff:ffff:ffff:ffff:ffff:ffff', 'public'], // AMT
  ['2001:4:112::/48', '2001:4:112::', '2001:4:112:ffff:ffff:ffff:ffff:ffff', 'public'], // AS112-v6
  ['2001:10::/28', '2001:10::', '2001:1f:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'], // ex-ORCHID
  ['2001:20::/28', '2001:20::', '2001:2f:ffff:ffff:ffff:ffff:ffff:ffff', 'public'], // ORCHIDv2
  ['2001:30::/28', '2001:30::', '2001:3f:ffff:ffff:ffff:ffff:ffff:ffff', 'public'], // DETs
  ['2001:db8::/32', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
  ['2002::/16', '2002:a00::', '2002:a00:1::', 'private'], // 6to4: judged by the IPv4 inside (10.0.0.0)
  ['2620:4f:8000::/48', '2620:4f:8000::', '2620:4f:8000:ffff:ffff:ffff:ffff:ffff', 'public'],
  ['3fff::/20', '3fff::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
  ['5f00::/16', '5f00::', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'], // SRv6 SIDs
  ['fc00::/7', 'fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique-local'],
  ['fe80::/10', 'fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local'],
  ['fec0::/10', 'fec0::', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'site-local'],
  ['ff00::/8', 'ff00::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'multicast'],
];

describe('the IANA special-purpose registries, block by block', () => {
  for (const [block, first, last, want] of IANA_BLOCKS) {
    it(`${block}: ${first} and ${last} → ${want}`, () => {
      assert.equal(classifyAddress(first), want, first);
      assert.equal(classifyAddress(last), want, last);
    });
  }

  it('every registry entry has a row above (a new block needs its test)', () => {
    const tested = new Set(IANA_BLOCKS.map(([b]) => b));
    for (const e of [...IPV4_SPECIAL, ...IPV4_OTHER, ...IPV6_SPECIAL, ...IPV6_OTHER]) assert.ok(tested.has(e.block), e.block);
  });

  it('the blocks the audit found public are refused, and their public neighbours stay public', () => {
    assert.equal(classifyAddress('2001:2::1'), 'reserved');
    assert.equal(classifyAddress('2001:2:1::'), 'reserved'); // inside 2001::/23 anyway
    assert.equal(classifyAddress('3fff::1'), 'documentation');
    assert.equal(classifyAddress('3fff:abc::1'), 'documentation');
    assert.equal(classifyAddress('3fff:1000::'), 'public');
    assert.equal(classifyAddress('3ffe:ffff::1'), 'public');
    assert.equal(classifyAddress('5eff:ffff::1'), 'reserved'); // outside 2000::/3: unassigned
    assert.equal(classifyAddress('2001:200::1'), 'public'); // first address past 2001::/23
    assert.equal(classifyAddress('2001:da8::1'), 'public');
    assert.equal(classifyAddress('2001:1::4'), 'reserved'); // beside the three anycast addresses
    assert.equal(classifyAddress('2620:4f:8001::'), 'public');
    assert.equal(classifyAddress('192.0.0.11'), 'reserved');
    assert.equal(classifyAddress('192.0.1.0'), 'public');
    assert.equal(classifyAddress('192.88.98.255'), 'public');
    assert.equal(classifyAddress('198.20.0.0'), 'public');
    assert.equal(classifyAddress('64:ff9b::ffff:ffff'), 'broadcast'); // NAT64 of 255.255.255.255
    assert.equal(classifyAddress('64:ff9b::808:808'), 'public');
  });
});

describe('parseCidr', () => {
  it('matches IPv4 and IPv6 blocks and bare addresses; refuses malformed ones', () => {
    assert.equal(parseCidr('10.0.0.0/8')!('10.1.2.3'), true);
    assert.equal(parseCidr('10.0.0.0/8')!('11.0.0.0'), false);
    assert.equal(parseCidr('10.0.0.0/8')!('::ffff:10.0.0.1'), true);
    assert.equal(parseCidr('192.168.1.20')!('192.168.1.20'), true);
    assert.equal(parseCidr('192.168.1.20')!('192.168.1.21'), false);
    assert.equal(parseCidr('fd00::/8')!('fd12::1'), true);
    assert.equal(parseCidr('fd00::/8')!('fe00::1'), false);
    assert.equal(parseCidr('[::1]')!('::1'), true);
    assert.equal(parseCidr('0.0.0.0/0')!('8.8.8.8'), true);
    for (const bad of ['10.0.0.0/33', '::/129', 'x/8', '10.0.0.0/', '10.0.0.0/a', 'example.com']) assert.equal(parseCidr(bad), undefined, bad);
  });
});
