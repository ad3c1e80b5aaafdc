import { jest } from '@jest/globals';
import {
  A2aAddressRefusedError,
  A2aAgentClient,
  A2aClientMessages,
  type AgentCard,
} from '../../../libs/a2a/src/client.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { startCardHost, type CardHost } from './fixtures/card-host.js';
import { LOOPBACK } from './fixtures/client-targets.js';

/**
 * The client's SSRF guard (the push sender's address policy): the card URL, every interface URL and the token URL
 * come from the network, so only public addresses over https are dialled unless the allowlist says otherwise; the
 * refusal comes before any connection (IP literals), at lookup (every address of a name), or at connect.
 */
let agent: RunningAgent;
let host: CardHost;
beforeAll(async () => {
  [agent, host] = await Promise.all([startConformanceAgent({ withGrpc: true, push: false }), startCardHost()]);
});
afterAll(() => Promise.all([agent?.close(), host?.close()]));

async function agentCard(): Promise<AgentCard> {
  return (await (await fetch(`${agent.url}/.well-known/agent-card.json`)).json()) as AgentCard;
}

async function refusal(promise: Promise<unknown>): Promise<A2aAddressRefusedError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(A2aAddressRefusedError);
  expect(error).toMatchObject({ kind: 'AddressRefused' });
  return error as A2aAddressRefusedError;
}

describe('the card URL', () => {
  it('on 10.0.0.1 is refused before any connection, whatever the allowlist of other ranges', async () => {
    const fetchSpy = jest.fn<typeof fetch>();
    const client = new A2aAgentClient({
      cardUrl: 'https://10.0.0.1/',
      network: LOOPBACK,
      fetch: fetchSpy,
      timeoutMs: 5000,
    });
    const started = Date.now();
    const error = await refusal(client.card());
    expect(error.message).toContain('10.0.0.1 (private)');
    expect(fetchSpy).not.toHaveBeenCalled();
    // 10.0.0.1 answers nothing here: a connection attempt would have waited for the timeout.
    expect(Date.now() - started).toBeLessThan(1000);
    await client.close();
  });

  it('on the built-in HTTP stack too, without a single connection attempt', async () => {
    const client = new A2aAgentClient({
      cardUrl: 'http://10.0.0.1/',
      network: { allowHttp: true },
      timeoutMs: 5000,
      retry: false,
    });
    const started = Date.now();
    await refusal(client.card());
    expect(Date.now() - started).toBeLessThan(1000);
    await client.close();
  });

  it('over plain http to a public address is refused unless allowed', async () => {
    const client = new A2aAgentClient({ cardUrl: 'http://93.184.216.34/', fetch: jest.fn<typeof fetch>() });
    expect((await refusal(client.card())).message).toContain('plain http');
    await client.close();
  });

  it('loopback is refused without an allowlist', async () => {
    const client = new A2aAgentClient({ cardUrl: agent.url, network: { allowHttp: true }, retry: false });
    expect((await refusal(client.card())).message).toContain('(loopback)');
    await client.close();
  });

  it('a host name is checked on every address it resolves to, at lookup', async () => {
    const resolveHost = jest.fn(async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.1.2.3', family: 4 },
    ]);
    const client = new A2aAgentClient({
      cardUrl: 'https://agent.example.com/',
      network: { resolveHost },
      retry: false,
    });
    expect((await refusal(client.card())).message).toContain('10.1.2.3 (private)');
    expect(resolveHost).toHaveBeenCalledWith('agent.example.com');
    await client.close();
  });

  it('an allowlisted host name reaches what it resolves to (checked again once connected)', async () => {
    const port = new URL(agent.url).port;
    const resolveHost = async () => [{ address: '127.0.0.1', family: 4 }];
    const client = new A2aAgentClient({
      cardUrl: `http://agent.test:${port}/`,
      network: { allowedHosts: ['agent.test'], resolveHost },
      preferredTransports: ['HTTP+JSON'],
    });
    expect((await client.card()).name).toBe('A2A conformance agent');
    await client.close();
  });

  it('credentials in the URL are refused', async () => {
    const client = new A2aAgentClient({
      cardUrl: `http://user:secret@127.0.0.1:${new URL(agent.url).port}/`,
      network: LOOPBACK,
    });
    const error = await refusal(client.card());
    expect(error.message).not.toContain('secret');
    await client.close();
  });
});

describe('an interface URL of the card', () => {
  it.each([
    ['JSONRPC', 'http://169.254.169.254/latest/meta-data/'],
    ['HTTP+JSON', 'https://169.254.169.254/a2a'],
    ['GRPC', '169.254.169.254:443'],
  ])(
    '%s on 169.254.169.254 (cloud metadata) is refused: the call fails before any connection',
    async (binding, url) => {
      host.serve({
        ...(await agentCard()),
        supportedInterfaces: [{ url, protocolBinding: binding, protocolVersion: '1.0' }],
      });
      const client = new A2aAgentClient({
        cardUrl: host.url,
        network: LOOPBACK,
        preferredTransports: [binding],
        retry: false,
        timeoutMs: 5000,
      });
      const started = Date.now();
      const error = await refusal(client.send('echo hi'));
      expect(error.message).toContain('169.254.169.254 (link-local)');
      expect(Date.now() - started).toBeLessThan(1000);
      await client.close();
    },
  );

  it('a refused interface is passed over for the next one of the card', async () => {
    const card = await agentCard();
    host.serve({
      ...card,
      supportedInterfaces: [
        { url: 'http://169.254.169.254/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        ...card.supportedInterfaces.slice(1),
      ],
    });
    const client = new A2aAgentClient({ cardUrl: host.url, network: LOOPBACK });
    expect(await client.send('echo around')).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
    await client.close();
  });
});

describe('every refusal names the client option that would allow it, or says none does', () => {
  async function refusedWith(cardUrl: string, network?: object): Promise<string> {
    const client = new A2aAgentClient({ cardUrl, network, fetch: jest.fn<typeof fetch>(), retry: false });
    try {
      return (await refusal(client.card())).message;
    } finally {
      await client.close();
    }
  }

  it('plain http: network.allowHttp, network.allowedHosts with the host, network.allowedCidrs', async () => {
    const message = await refusedWith('http://93.184.216.34/');
    expect(message).toBe(
      A2aClientMessages.plainHttpRefused('http://93.184.216.34/.well-known/agent-card.json', '93.184.216.34'),
    );
    expect(message).toContain('network.allowHttp: true');
    expect(message).toContain("network: { allowedHosts: ['93.184.216.34'] }");
    expect(message).toContain('network.allowedCidrs');
  });

  it('a loopback address: network.allowedHosts with the host, or network.allowedCidrs', async () => {
    const message = await refusedWith(agent.url, { allowHttp: true });
    expect(message).toBe(A2aClientMessages.addressRefused('127.0.0.1', '127.0.0.1', 'loopback'));
    expect(message).toContain("network: { allowedHosts: ['127.0.0.1'] }");
    expect(message).toContain('network.allowedCidrs');
  });

  it('a multicast address: no option allows it, and the message does not suggest one', async () => {
    const message = await refusedWith('https://224.0.0.1/', { allowedCidrs: ['224.0.0.0/4'] });
    expect(message).toBe(A2aClientMessages.addressNeverDialled('224.0.0.1', '224.0.0.1', 'multicast'));
    expect(message).not.toContain('allowedHosts');
  });

  it('credentials in the URL: names the option to give them in instead', async () => {
    expect(await refusedWith('https://user:pw@agent.example/')).toContain("the agent's credentials option");
  });
});
