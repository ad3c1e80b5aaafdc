import { withDefaults } from '../../../libs/a2a/src/client/a2a-client.options.js';
import { agentCardProblems } from '../../../libs/a2a/src/client/agent-card.validator.js';
import { cardUrlOf } from '../../../libs/a2a/src/client/agent-card.resolver.js';
import { A2aTransportError } from '../../../libs/a2a/src/client/a2a-client.errors.js';
import { RetryPolicy } from '../../../libs/a2a/src/client/retry.policy.js';
import { parseGrpcUrl } from '../../../libs/a2a/src/client/transports/grpc-target.js';

describe('withDefaults', () => {
  it('lets the agent win field by field, one level deep for the option groups', () => {
    const merged = withDefaults(
      { cardUrl: 'https://a.example', network: { allowedHosts: ['a.example'] }, retry: { maxAttempts: 5 } },
      {
        timeoutMs: 1000,
        network: { allowedCidrs: ['10.0.0.0/8'] },
        retry: { initialDelayMs: 50 },
        preferredTransports: ['GRPC'],
      },
    );
    expect(merged).toEqual({
      cardUrl: 'https://a.example',
      timeoutMs: 1000,
      preferredTransports: ['GRPC'],
      network: { allowedCidrs: ['10.0.0.0/8'], allowedHosts: ['a.example'] },
      retry: { initialDelayMs: 50, maxAttempts: 5 },
    });
  });
});

describe('cardUrlOf', () => {
  it('takes an origin to its well-known card, and keeps any other URL', () => {
    expect(cardUrlOf('https://agent.example')).toBe('https://agent.example/.well-known/agent-card.json');
    expect(cardUrlOf('https://agent.example/cards/a.json')).toBe('https://agent.example/cards/a.json');
  });
});

describe('agentCardProblems', () => {
  const card = {
    name: 'A',
    description: 'B',
    version: '1',
    supportedInterfaces: [{ url: 'https://a.example', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };

  it('accepts a minimal card and ignores unknown fields', () => {
    expect(agentCardProblems({ ...card, future: { anything: true } })).toEqual([]);
  });

  it('reports missing REQUIRED fields and wrong types, at most eight, without walking free-form values', () => {
    expect(agentCardProblems({})).toEqual(
      expect.arrayContaining(['name is required', 'supportedInterfaces is required', 'capabilities is required']),
    );
    expect(agentCardProblems({ ...card, skills: [{ id: 1 }] })).toEqual([
      'skills[0].id must be a string',
      'skills[0].name is required',
      'skills[0].description is required',
      'skills[0].tags is required',
    ]);
    expect(agentCardProblems([])).toEqual(['the card must be a JSON object']);
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { deep };
    expect(agentCardProblems({ ...card, capabilities: { extensions: [{ uri: 'u', params: deep }] } })).toEqual([]);
  });
});

describe('RetryPolicy', () => {
  const network = new A2aTransportError('Network', 'reset');

  it('retries retryable errors up to maxAttempts, with full jitter under a doubling ceiling', () => {
    const policy = new RetryPolicy({ maxAttempts: 3, initialDelayMs: 100, maxDelayMs: 250 });
    expect(policy.shouldRetry(network, 1)).toBe(true);
    expect(policy.shouldRetry(network, 3)).toBe(false);
    expect(policy.shouldRetry(new Error('not ours'), 1)).toBe(false);
    for (let i = 0; i < 50; i++) {
      expect(policy.delayMs(1, network)).toBeLessThan(100);
      expect(policy.delayMs(3, network)).toBeLessThanOrEqual(250);
    }
  });

  it('waits at least Retry-After, capped by maxDelayMs; false means one attempt', () => {
    const policy = new RetryPolicy({ initialDelayMs: 10, maxDelayMs: 1000 });
    expect(policy.delayMs(1, { retryAfterMs: 600 })).toBeGreaterThanOrEqual(600);
    expect(policy.delayMs(1, { retryAfterMs: 60_000 })).toBe(1000);
    expect(new RetryPolicy(false).shouldRetry(network, 1)).toBe(false);
  });
});

describe('parseGrpcUrl', () => {
  it('reads host:port with or without a scheme; grpcs and https ask for TLS', () => {
    expect(parseGrpcUrl('127.0.0.1:50051')).toEqual({ host: '127.0.0.1', port: 50051, tls: false });
    expect(parseGrpcUrl('grpcs://agent.example')).toEqual({ host: 'agent.example', port: 443, tls: true });
    expect(parseGrpcUrl('dns:///agent.example:8443')).toEqual({ host: 'agent.example', port: 8443, tls: false });
    expect(parseGrpcUrl('[::1]:50051')).toEqual({ host: '[::1]', port: 50051, tls: false });
    expect(() => parseGrpcUrl('a:b:c')).toThrow(A2aTransportError);
  });
});
