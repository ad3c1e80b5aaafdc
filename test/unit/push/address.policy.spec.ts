import { PushAddressPolicy, pushAllowList } from '../../../libs/a2a/src/push/push-address.policy.js';
import { InvalidPushOptionsError } from '../../../libs/a2a/src/push/push.errors.js';

/** Every address a webhook must never reach, with the reason it is refused. */
const REFUSED: ReadonlyArray<[address: string, what: string]> = [
  ['127.0.0.1', 'IPv4 loopback'],
  ['10.0.0.1', 'RFC 1918 10/8'],
  ['172.16.0.1', 'RFC 1918 172.16/12'],
  ['192.168.1.1', 'RFC 1918 192.168/16'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['100.64.0.1', 'CGNAT 100.64/10'],
  ['100.100.100.200', 'CGNAT (Alibaba metadata)'],
  ['0.0.0.0', 'unspecified (dials the local host)'],
  ['0.1.2.3', 'this network 0/8'],
  ['255.255.255.255', 'broadcast'],
  ['224.0.0.1', 'multicast'],
  ['192.0.0.192', 'IETF protocol assignments 192.0.0/24'],
  ['198.18.0.1', 'benchmarking 198.18/15'],
  ['192.0.2.1', 'TEST-NET-1'],
  ['198.51.100.1', 'TEST-NET-2'],
  ['203.0.113.1', 'TEST-NET-3'],
  ['240.0.0.1', 'reserved 240/4'],
  ['::', 'IPv6 unspecified'],
  ['::1', 'IPv6 loopback'],
  ['::127.0.0.1', 'IPv4-compatible loopback (dotted)'],
  ['::7f00:1', 'IPv4-compatible loopback (hex): outside 2000::/3'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata address'],
  ['::ffff:0:7f00:1', 'IPv4-translated (RFC 6145)'],
  ['fc00::1', 'unique local fc00::/7'],
  ['fd00:ec2::254', 'unique local (AWS metadata over IPv6)'],
  ['fe80::1', 'link-local fe80::/10'],
  ['fe80::1%eth0', 'link-local with a zone'],
  ['ff02::1', 'IPv6 multicast'],
  ['64:ff9b::7f00:1', 'NAT64 64:ff9b::/96 to loopback'],
  ['64:ff9b:1::1', 'local-use NAT64 64:ff9b:1::/48'],
  ['2002:7f00:1::', '6to4 2002::/16 embedding loopback'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo 2001::/32'],
  ['fec0::1', 'deprecated site-local fec0::/10'],
  ['100::1', 'discard-only 100::/64'],
  ['2001:db8::1', 'documentation 2001:db8::/32'],
  ['4000::1', 'unallocated: outside 2000::/3'],
  ['not-an-ip', 'not an address'],
  ['127.1', 'not in canonical form'],
  ['', 'empty'],
];

const ALLOWED = ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2a00:1450:4001:80b::200e'];

describe('PushAddressPolicy', () => {
  const policy = new PushAddressPolicy();

  describe('without an allowlist (spec §13.2)', () => {
    it.each(REFUSED)('refuses %s (%s)', (address) => {
      expect(policy.isAllowedAddress(address)).toBe(false);
    });

    it.each(ALLOWED)('allows the public unicast address %s', (address) => {
      expect(policy.isAllowedAddress(address)).toBe(true);
    });

    it('names the range it refuses, for messages', () => {
      expect(policy.rangeOf('169.254.169.254')).toBe('linkLocal');
      expect(policy.rangeOf('::ffff:127.0.0.1')).toBe('loopback');
      expect(policy.rangeOf('4000::1')).toBe('unallocated');
      expect(policy.rangeOf('nope')).toBe('invalid');
    });

    it('allows neither plain http nor any host exemption', () => {
      expect(policy.allowsPlainHttp(new URL('http://example.com/'))).toBe(false);
      expect(policy.allowsPlainHttp(new URL('http://8.8.8.8/'))).toBe(false);
      expect(policy.isAllowlistedHost('example.com')).toBe(false);
    });
  });

  describe('allowedCidrs widens the IP policy', () => {
    const widened = new PushAddressPolicy({
      allowedCidrs: ['127.0.0.1/32', '10.1.0.0/16', 'fd00:ec2::/32', '192.168.7.7'],
    });

    it('allows addresses inside an allowed range, however they are written', () => {
      for (const address of ['127.0.0.1', '::ffff:127.0.0.1', '10.1.255.1', 'fd00:ec2::254', '192.168.7.7']) {
        expect(widened.isAllowedAddress(address)).toBe(true);
      }
    });

    it('still refuses everything else', () => {
      for (const address of ['127.0.0.2', '10.2.0.1', '169.254.169.254', 'fd00::1', '::1', '192.168.7.8']) {
        expect(widened.isAllowedAddress(address)).toBe(false);
      }
    });

    it('matches an IPv4-mapped range against IPv4 addresses', () => {
      const mapped = new PushAddressPolicy({ allowedCidrs: ['::ffff:127.0.0.0/104'] });
      expect(mapped.isAllowedAddress('127.0.0.9')).toBe(true);
      expect(mapped.isAllowedAddress('::ffff:127.0.0.9')).toBe(true);
      expect(mapped.isAllowedAddress('10.0.0.1')).toBe(false);
    });

    it('never allows an address nothing should dial, even inside an allowed range', () => {
      const everything = new PushAddressPolicy({ allowedCidrs: ['0.0.0.0/0', '::/0'] });
      for (const address of ['0.0.0.0', '255.255.255.255', '224.0.0.1', '::', 'ff02::1']) {
        expect(everything.isAllowedAddress(address)).toBe(false);
      }
      expect(everything.isAllowedAddress('10.0.0.1')).toBe(true);
      expect(everything.isAllowedAddress('fe80::1')).toBe(true);
    });

    it('lets plain http reach an IP literal inside an allowed range, and only that', () => {
      expect(widened.allowsPlainHttp(new URL('http://127.0.0.1:8080/hook'))).toBe(true);
      expect(widened.allowsPlainHttp(new URL('http://[fd00:ec2::254]/hook'))).toBe(true);
      expect(widened.allowsPlainHttp(new URL('http://127.0.0.2/hook'))).toBe(false);
      expect(widened.allowsPlainHttp(new URL('http://8.8.8.8/hook'))).toBe(false);
      expect(widened.allowsPlainHttp(new URL('http://localhost/hook'))).toBe(false);
    });
  });

  describe('allowedHosts', () => {
    const hosts = new PushAddressPolicy({ allowedHosts: ['Hooks.Internal', 'localhost', '[::1]'] });

    it('matches host names exactly and case-insensitively, ignoring a trailing dot', () => {
      expect(hosts.isAllowlistedHost('hooks.internal')).toBe(true);
      expect(hosts.isAllowlistedHost('HOOKS.INTERNAL.')).toBe(true);
      expect(hosts.isAllowlistedHost('a.hooks.internal')).toBe(false);
      expect(hosts.isAllowlistedHost('hooks.internal.evil.com')).toBe(false);
      expect(hosts.isAllowlistedHost('[::1]')).toBe(true);
      expect(hosts.isAllowlistedHost('::1')).toBe(true);
    });

    it('allows any dialable address for an allowlisted host, and nothing more for others', () => {
      expect(hosts.isAllowedAddress('10.0.0.1', 'hooks.internal')).toBe(true);
      expect(hosts.isAllowedAddress('127.0.0.1', 'localhost')).toBe(true);
      expect(hosts.isAllowedAddress('0.0.0.0', 'hooks.internal')).toBe(false);
      expect(hosts.isAllowedAddress('10.0.0.1', 'example.com')).toBe(false);
      expect(hosts.isAllowedAddress('10.0.0.1')).toBe(false);
    });

    it('lets allowlisted hosts use plain http', () => {
      expect(hosts.allowsPlainHttp(new URL('http://hooks.internal/x'))).toBe(true);
      expect(hosts.allowsPlainHttp(new URL('http://[::1]:99/x'))).toBe(true);
      expect(hosts.allowsPlainHttp(new URL('http://example.com/x'))).toBe(false);
    });
  });

  it('allowHttp allows plain http to every host (the address checks are unchanged)', () => {
    const http = new PushAddressPolicy({ allowHttp: true });
    expect(http.allowsPlainHttp(new URL('http://example.com/'))).toBe(true);
    expect(http.isAllowedAddress('127.0.0.1')).toBe(false);
  });

  it.each([['not-a-cidr'], ['10.0.0.0/33'], ['127.1/8'], ['fd00::/129'], [''], [42]])(
    'refuses the allowed range %p at bootstrap',
    (cidr) => {
      expect(() => new PushAddressPolicy({ allowedCidrs: [cidr as string] })).toThrow(InvalidPushOptionsError);
    },
  );

  describe('allowedPorts', () => {
    it('keeps an allowlisted address to 80, 443, 8080 and 8443 by default; a public one may use any port', () => {
      const policy = new PushAddressPolicy({ allowedCidrs: ['10.0.0.0/8'] });
      for (const port of [80, 443, 8080, 8443]) expect(policy.isAllowedPort('10.1.2.3', port)).toBe(true);
      for (const port of [6379, 5432, 22, 1]) expect(policy.isAllowedPort('10.1.2.3', port)).toBe(false);
      expect(policy.isAllowedPort('::ffff:10.1.2.3', 6379)).toBe(false);
      expect(policy.isAllowedPort('8.8.8.8', 6379)).toBe(true);
      expect(policy.describePorts()).toBe('ports 80, 443, 8080, 8443');
    });

    it("takes the ports given, or 'any'", () => {
      const listed = new PushAddressPolicy({ allowedCidrs: ['10.0.0.0/8'], allowedPorts: [9000] });
      expect([listed.isAllowedPort('10.1.2.3', 9000), listed.isAllowedPort('10.1.2.3', 443)]).toEqual([true, false]);
      expect(listed.describePorts()).toBe('port 9000');
      const any = new PushAddressPolicy({ allowedCidrs: ['10.0.0.0/8'], allowedPorts: 'any' });
      expect(any.isAllowedPort('10.1.2.3', 6379)).toBe(true);
      expect(any.describePorts()).toBe('any port');
    });

    it.each([['all'], [[0]], [[65536]], [[80.5]], [['80']], [80]])('refuses allowedPorts %p at bootstrap', (ports) => {
      expect(() => new PushAddressPolicy({ allowedPorts: ports as never })).toThrow(InvalidPushOptionsError);
    });
  });

  it.each([[''], ['a b'], ['https://x'], [7]])('refuses the allowed host %p at bootstrap', (host) => {
    expect(() => new PushAddressPolicy({ allowedHosts: [host as string] })).toThrow(InvalidPushOptionsError);
  });

  describe('pushAllowList', () => {
    it('splits a comma-separated list (A2A_PUSH_ALLOW) into ranges and host names', () => {
      expect(pushAllowList(' 127.0.0.1/32, ::1 ,hooks.internal,,localhost ')).toEqual({
        allowedCidrs: ['127.0.0.1/32', '::1'],
        allowedHosts: ['hooks.internal', 'localhost'],
      });
      expect(pushAllowList(undefined)).toEqual({ allowedCidrs: [], allowedHosts: [] });
    });
  });
});
