import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { classifyAddress, type AddressClass } from './net-address.ts';

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
