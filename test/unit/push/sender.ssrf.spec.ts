import type { LookupAddress } from 'node:dns';
import { guardedLookup } from '../../../libs/a2a/src/push/push-address.lookup.js';
import { PushAddressPolicy } from '../../../libs/a2a/src/push/push-address.policy.js';
import { WebhookAddressRefusedError } from '../../../libs/a2a/src/push/push.errors.js';
import { PushMessages } from '../../../libs/a2a/src/push/push.messages.js';
import { WebhookSender, type WebhookDelivery } from '../../../libs/a2a/src/push/webhook.sender.js';
import { WebhookReceiver } from '../../fixtures/webhook-receiver.js';
import { WebhookTrap } from '../../fixtures/webhook-trap.js';

/**
 * spec §13.2: a webhook must never reach the agent's own host or network. Plain http is
 * allowed throughout so that only the address decides; nothing is allowlisted unless a test says so.
 */
const BASE = { allowHttp: true, connectTimeoutMs: 2_000, headersTimeoutMs: 2_000, totalTimeoutMs: 4_000 } as const;

function delivery(url: string): WebhookDelivery {
  return {
    url,
    eventId: 'task-1:1',
    body: '{"statusUpdate":{}}',
    authentication: { scheme: 'Bearer', credentials: 'CRED-s3cr3t' },
  };
}

/** A resolver answering from a table, counting its calls. */
function fakeDns(table: Record<string, string[]>) {
  const resolver = Object.assign(
    async (hostname: string): Promise<LookupAddress[]> => {
      resolver.calls.push(hostname);
      const addresses = table[hostname];
      if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
    { calls: [] as string[] },
  );
  return resolver;
}

describe('WebhookSender SSRF guards (spec §13.2, at connect)', () => {
  let trap: WebhookTrap;

  beforeEach(async () => {
    trap = await WebhookTrap.start();
  });
  afterEach(async () => {
    await trap.stop();
  });

  /** Sends, expects a permanent refusal, and checks the trap saw nothing. */
  async function expectRefused(sender: WebhookSender, url: string, error?: string): Promise<void> {
    const outcome = await sender.send(delivery(url));
    expect(outcome).toMatchObject({ kind: 'permanent' });
    expect(outcome).not.toHaveProperty('status');
    if (error !== undefined) expect(outcome).toEqual({ kind: 'permanent', error });
    expect(JSON.stringify(outcome)).not.toContain('s3cr3t');
    expect(trap.connections).toBe(0);
  }

  describe('without an allowlist, nothing reaches the trap on loopback', () => {
    const sender = new WebhookSender(BASE);

    it('http://127.0.0.1:<trap>/', async () => {
      await expectRefused(
        sender,
        `http://127.0.0.1:${trap.port}/`,
        PushMessages.configRefused(`url: ${PushMessages.urlAddressRefused('127.0.0.1', 'loopback')}`),
      );
    });

    it('http://[::ffff:127.0.0.1]:<trap>/ (IPv4-mapped)', async () => {
      await expectRefused(sender, `http://[::ffff:127.0.0.1]:${trap.port}/`);
    });

    it('http://2130706433:<trap>/ and http://0x7f.1:<trap>/ (numeric forms WHATWG rewrites)', async () => {
      await expectRefused(sender, `http://2130706433:${trap.port}/`);
      await expectRefused(sender, `http://0x7f.1:${trap.port}/`);
    });

    it('http://localhost:<trap>/ (a name resolving to loopback)', async () => {
      await expectRefused(
        sender,
        `http://localhost:${trap.port}/`,
        PushMessages.configRefused(`url: ${PushMessages.urlLocalhost()}`),
      );
    });
  });

  describe('host names are checked on every address they resolve to (DNS rebinding)', () => {
    it('a public-looking name resolving to loopback at send time is refused before dialling', async () => {
      const dns = fakeDns({ 'rebound.example': ['127.0.0.1'] });
      const sender = new WebhookSender({ ...BASE, resolveHost: dns });
      await expectRefused(
        sender,
        `http://rebound.example:${trap.port}/`,
        PushMessages.addressRefused('rebound.example', '127.0.0.1', 'loopback'),
      );
      expect(dns.calls).toEqual(['rebound.example']);
    });

    it('one refused address among public ones refuses the host (happy eyeballs may dial any)', async () => {
      const sender = new WebhookSender({
        ...BASE,
        resolveHost: fakeDns({ 'mixed.example': ['8.8.8.8', '2606:4700:4700::1111', '127.0.0.1'] }),
      });
      await expectRefused(
        sender,
        `http://mixed.example:${trap.port}/`,
        PushMessages.addressRefused('mixed.example', '127.0.0.1', 'loopback'),
      );
    });

    it.each([['::ffff:127.0.0.1'], ['::1'], ['64:ff9b::7f00:1'], ['169.254.169.254'], ['0.0.0.0']])(
      'a name resolving to %s is refused',
      async (address) => {
        const sender = new WebhookSender({ ...BASE, resolveHost: fakeDns({ 'evil.example': [address] }) });
        await expectRefused(sender, `http://evil.example:${trap.port}/`);
      },
    );

    it('an allowlisted host still may not resolve to an address nothing should dial', async () => {
      const sender = new WebhookSender({
        ...BASE,
        allowedHosts: ['hooks.internal'],
        resolveHost: fakeDns({ 'hooks.internal': ['0.0.0.0'] }),
      });
      await expectRefused(
        sender,
        `http://hooks.internal:${trap.port}/`,
        PushMessages.addressRefused('hooks.internal', '0.0.0.0', 'unspecified'),
      );
    });
  });

  describe('an allowlisted destination may use allowedPorts only (default 80, 443, 8080, 8443)', () => {
    it('an allowlisted IP literal on another port: refused by the config rules, nothing dialled', async () => {
      const sender = new WebhookSender({ ...BASE, allowedCidrs: ['127.0.0.1/32'] });
      await expectRefused(
        sender,
        `http://127.0.0.1:${trap.port}/`,
        PushMessages.configRefused(`url: ${PushMessages.urlPortRefused(trap.port, 'ports 80, 443, 8080, 8443')}`),
      );
    });

    it('an allowlisted host name, or a name resolving into an allowed range, on another port: refused on connect, zero bytes', async () => {
      const dns = fakeDns({ 'hooks.internal': ['127.0.0.1'] });
      for (const allowlist of [{ allowedHosts: ['hooks.internal'] }, { allowedCidrs: ['127.0.0.0/8'] }]) {
        const sender = new WebhookSender({ ...BASE, ...allowlist, allowedPorts: [8443], resolveHost: dns });
        const outcome = await sender.send(delivery(`https://hooks.internal:${trap.port}/hook`));
        expect(outcome).toEqual({
          kind: 'permanent',
          error: PushMessages.portRefused('hooks.internal', '127.0.0.1', trap.port, 'port 8443'),
        });
      }
      await trap.settled();
      expect(trap.bytes).toBe(0);
    });

    it('with allowedPorts "any", or the port listed, the allowlisted receiver is reached', async () => {
      const receiver = await WebhookReceiver.start();
      try {
        for (const allowedPorts of ['any', [receiver.port]] as const) {
          const sender = new WebhookSender({ ...BASE, allowedCidrs: ['127.0.0.1/32'], allowedPorts });
          expect(await sender.send(delivery(receiver.url()))).toMatchObject({ kind: 'delivered' });
        }
      } finally {
        await receiver.stop();
      }
    });
  });

  it('a redirect from an allowed receiver to the trap is not followed', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      receiver.respond = (_req, res) => res.writeHead(302, { Location: `http://127.0.0.1:${trap.port}/` }).end();
      const sender = new WebhookSender({
        ...BASE,
        allowedHosts: ['receiver.test'],
        allowedPorts: 'any',
        resolveHost: fakeDns({ 'receiver.test': ['127.0.0.1'] }),
      });
      const outcome = await sender.send(delivery(`http://receiver.test:${receiver.port}/hook`));
      expect(outcome).toEqual({
        kind: 'permanent',
        status: 302,
        error: PushMessages.redirected(`http://receiver.test:${receiver.port}/hook`, 302),
      });
      expect(receiver.received).toHaveLength(1);
      expect(trap.connections).toBe(0);
    } finally {
      await receiver.stop();
    }
  });

  it('the connected address is checked again: a refused one gets zero request bytes', async () => {
    // Passes the create-time check once, then refuses: what an IP literal looks like if the pre-dial check were skipped.
    class FirstCheckPasses extends PushAddressPolicy {
      private checks = 0;
      override isAllowedAddress(ip: string, hostname?: string): boolean {
        return this.checks++ === 0 || super.isAllowedAddress(ip, hostname);
      }
    }
    // Any port: the address alone is the point.
    const sender = new WebhookSender(BASE, new FirstCheckPasses({ ...BASE, allowedPorts: 'any' }));
    const outcome = await sender.send(delivery(`http://127.0.0.1:${trap.port}/`));
    expect(outcome).toEqual({
      kind: 'permanent',
      error: PushMessages.addressRefused('127.0.0.1', '127.0.0.1', 'loopback'),
    });
    await trap.settled();
    expect(trap.connections).toBe(1);
    expect(trap.bytes).toBe(0);
  });

  it('the same holds over https: no TLS ClientHello reaches a refused address', async () => {
    class FirstCheckPasses extends PushAddressPolicy {
      private checks = 0;
      override isAllowedAddress(ip: string, hostname?: string): boolean {
        return this.checks++ === 0 || super.isAllowedAddress(ip, hostname);
      }
    }
    // Any port: the address alone is the point.
    const sender = new WebhookSender(BASE, new FirstCheckPasses({ ...BASE, allowedPorts: 'any' }));
    expect(await sender.send(delivery(`https://127.0.0.1:${trap.port}/`))).toMatchObject({ kind: 'permanent' });
    await trap.settled();
    expect(trap.bytes).toBe(0);
  });

  describe('private destinations are refused before any connection, without waiting on the network', () => {
    const dns = fakeDns({});
    const sender = new WebhookSender({ ...BASE, resolveHost: dns });

    it.each([
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', 'link-local'],
      ['https://169.254.169.254/', '169.254.169.254', 'link-local'],
      ['http://10.0.0.1/', '10.0.0.1', 'private'],
      ['https://[fd00:ec2::254]/', 'fd00:ec2::254', 'unique local'],
      ['http://100.100.100.200/', '100.100.100.200', 'carrier-grade NAT'],
    ])('%s', async (url, address, range) => {
      const started = Date.now();
      const outcome = await sender.send(delivery(url));
      expect(outcome).toEqual({
        kind: 'permanent',
        error: PushMessages.configRefused(`url: ${PushMessages.urlAddressRefused(address, range)}`),
      });
      expect(Date.now() - started).toBeLessThan(500);
      expect(dns.calls).toEqual([]);
    });
  });
});

describe('guardedLookup', () => {
  const strict = new PushAddressPolicy();

  function lookup(
    policy: PushAddressPolicy,
    hostname: string,
    all: boolean,
    resolve?: Parameters<typeof guardedLookup>[2],
  ) {
    return new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>((done) =>
      guardedLookup(policy, hostname, resolve)(hostname, { all }, (error, address, family) =>
        done({ error, address, family }),
      ),
    );
  }

  it('refuses localhost as the system resolver answers it', async () => {
    const { error } = await lookup(strict, 'localhost', true);
    expect(error).toBeInstanceOf(WebhookAddressRefusedError);
  });

  it('returns every address, or the first, for an allowed host', async () => {
    const allowed = new PushAddressPolicy({ allowedHosts: ['localhost'] });
    const all = await lookup(allowed, 'localhost', true);
    expect(all.error).toBeNull();
    expect((all.address as LookupAddress[]).length).toBeGreaterThan(0);
    const first = await lookup(allowed, 'localhost', false);
    expect(first).toEqual({
      error: null,
      address: (all.address as LookupAddress[])[0].address,
      family: (all.address as LookupAddress[])[0].family,
    });
  });

  it('passes resolver errors through', async () => {
    const { error } = await lookup(strict, 'nowhere.example', true, fakeDns({}));
    expect(error?.code).toBe('ENOTFOUND');
  });

  it('keeps to the family asked for, still checking every address', async () => {
    const dns = fakeDns({ 'dual.example': ['8.8.8.8', '2606:4700:4700::1111'] });
    const v6 = await new Promise<unknown>((done) =>
      guardedLookup(strict, 'dual.example', dns)('dual.example', { all: true, family: 6 }, (_error, address) =>
        done(address),
      ),
    );
    expect(v6).toEqual([{ address: '2606:4700:4700::1111', family: 6 }]);
  });
});
