import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { AddressRefused, addressPolicy, vetHost } from './address-guard.ts';

describe('addressPolicy (SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS)', () => {
  it('public addresses always pass; without entries nothing else does', () => {
    const p = addressPolicy([]);
    assert.equal(p.refusal('api.openai.com', '104.18.6.192'), undefined);
    assert.equal(p.refusal('x', '127.0.0.1'), 'loopback');
    assert.equal(p.refusal('x', '169.254.169.254'), 'link-local');
    assert.equal(p.refusal('x', 'fd00::1'), 'unique-local');
    assert.equal(p.refusal('x', '3fff::1'), 'documentation');
  });

  it('addresses and CIDRs admit the addresses they cover, under any name; IPv4 entries admit the mapped IPv6 form', () => {
    const p = addressPolicy(['192.168.1.20', '10.0.0.0/8', 'fd00::/8']);
    assert.equal(p.refusal('a', '192.168.1.20'), undefined);
    assert.equal(p.refusal('a', '192.168.1.21'), 'private');
    assert.equal(p.refusal('b', '10.200.0.1'), undefined);
    assert.equal(p.refusal('b', '::ffff:10.200.0.1'), undefined);
    assert.equal(p.refusal('c', 'fd12::1'), undefined);
    assert.equal(p.refusal('c', 'fe80::1'), 'link-local');
  });

  it('names admit what they resolve to, for that name only (`*.lan`: subdomains), never an IP-literal host', () => {
    const p = addressPolicy(['llm.lan', '*.lab.example']);
    assert.equal(p.refusal('llm.lan', '192.168.1.5'), undefined);
    assert.equal(p.refusal('LLM.LAN.', '192.168.1.5'), undefined);
    assert.equal(p.refusal('gpu.lab.example', '10.0.0.9'), undefined);
    assert.equal(p.refusal('lab.example', '10.0.0.9'), 'private');
    assert.equal(p.refusal('evil.lan', '192.168.1.5'), 'private');
    assert.equal(p.refusal('192.168.1.5', '192.168.1.5'), 'private');
  });

  it('vetHost refuses a host when any one of its addresses is refused', async () => {
    const p = addressPolicy([]);
    const resolve = async () => [{ address: '93.184.216.34', family: 4 as const }, { address: '10.0.0.1', family: 4 as const }];
    await assert.rejects(vetHost(p, 'mixed.test', resolve), (e: unknown) => e instanceof AddressRefused && e.addressClass === 'private');
    assert.deepEqual(await vetHost(p, '[2606:4700::1111]'), [{ address: '2606:4700::1111', family: 6 }]);
  });
});
