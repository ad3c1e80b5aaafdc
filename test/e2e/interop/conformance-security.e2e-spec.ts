import { TaskState, type Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
  type TransportFactory,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import * as grpc from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { GrpcJsonClient } from '../../fixtures/grpc-json.client.js';
import { BINDINGS, call, type Binding, type SecurityTarget } from '../../fixtures/security-calls.js';
import { IdentityProvider } from '../../fixtures/identity-provider.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { userMessage } from './sdk-messages.js';
import { cardSigningKeyFromPem, verifyAgentCard, type AgentCard } from '../../../libs/a2a/src/index.js';
import { generateKeyPairSync } from 'node:crypto';

/**
 * The conformance agent with A2A_API_KEYS and a JWT issuer (CONFORMANCE-AGENT.md, "Security"), driven by the
 * official @a2a-js/sdk client on every binding with the credentials a real client would attach.
 */

const AUDIENCE = 'conformance-agent';
let idp: IdentityProvider;
let agent: RunningAgent;
let target: SecurityTarget;

beforeAll(async () => {
  idp = await IdentityProvider.start();
  const signingKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  agent = await startConformanceAgent({
    withGrpc: true,
    security: {
      apiKeys: { alice: 'key-a', bob: 'key-b' },
      jwt: { jwksUrl: idp.jwksUrl, issuer: idp.issuer, audience: AUDIENCE },
    },
    cardSigningKey: await cardSigningKeyFromPem(signingKey),
  });
  target = { httpUrl: agent.url, grpc: new GrpcJsonClient(agent.grpcAddress!), paths: { jsonRpc: '/', rest: '' } };
});
afterAll(async () => {
  target?.grpc.close();
  await agent?.close();
  await idp?.stop();
});

/** An sdk client over `binding` that sends `headers` with every call (HTTP headers, or gRPC metadata). */
function sdkClient(binding: Binding, headers: Record<string, string>): Promise<Client> {
  let transport: TransportFactory;
  if (binding === 'GRPC') {
    const interceptor: grpc.Interceptor = (options, next) =>
      new grpc.InterceptingCall(next(options), {
        start(metadata, listener, proceed) {
          for (const [name, value] of Object.entries(headers)) metadata.set(name.toLowerCase(), value);
          proceed(metadata, listener);
        },
      });
    transport = new GrpcTransportFactory({ grpcCallOptions: { interceptors: [interceptor] } });
  } else {
    const fetchImpl: typeof fetch = (input, init) =>
      fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), ...headers } });
    transport =
      binding === 'JSONRPC' ? new JsonRpcTransportFactory({ fetchImpl }) : new RestTransportFactory({ fetchImpl });
  }
  return new ClientFactory({ transports: [transport] }).createFromUrl(agent.url);
}

const send = async (client: Client, text: string): Promise<Task> =>
  (await client.sendMessage({
    tenant: '',
    message: userMessage(text),
    metadata: undefined,
    configuration: undefined,
  })) as Task;

describe('the card', () => {
  it('declares apiKey and bearer, one alternative each, and the extended card', async () => {
    const card = (await (await fetch(`${agent.url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    expect(card.securitySchemes).toEqual({
      apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key', description: 'A key of A2A_API_KEYS' } },
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
    });
    expect(card.securityRequirements).toEqual([
      { schemes: { apiKey: { list: [] } } },
      { schemes: { bearer: { list: [] } } },
    ]);
    expect(card.capabilities).toMatchObject({ extendedAgentCard: true });
  });

  it("carries one signature, over its RFC 8785 form, that verifies against the agent's JWK Set", async () => {
    const card = (await (await fetch(`${agent.url}/.well-known/agent-card.json`)).json()) as AgentCard;
    expect(card.signatures).toHaveLength(1);
    expect(await verifyAgentCard(card, { jwksUrl: `${agent.url}/.well-known/jwks.json` })).toMatchObject({
      valid: true,
      coverage: 'strict',
    });
  });
});

describe.each(BINDINGS)('@a2a-js/sdk client over %s', (binding) => {
  it('is refused without a credential: 401 / UNAUTHENTICATED with a challenge', async () => {
    const outcome = await call(target, binding, 'SendMessage', {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'echo hi' }] },
    });
    expect(outcome.status).toBe('UNAUTHENTICATED');
    expect(outcome.wwwAuthenticate).toEqual(expect.arrayContaining(['Bearer realm="a2a"']));
    const client = await sdkClient(binding, {});
    await expect(send(client, 'echo hi')).rejects.toThrow();
  });

  it('serves alice by API key; bob cannot see her task (TaskNotFound) and lists only his own', async () => {
    const alice = await sdkClient(binding, { 'X-API-Key': 'key-a' });
    const bob = await sdkClient(binding, { 'X-API-Key': 'key-b' });
    const task = await send(alice, 'echo hello');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await expect(bob.getTask({ tenant: '', id: task.id, historyLength: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    const bobs = await bob.listTasks({
      tenant: '',
      contextId: '',
      status: 0,
      pageSize: 100,
      pageToken: '',
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: false,
    } as never);
    expect(bobs.tasks.map((t) => t.id)).not.toContain(task.id);
  });

  it('serves a bearer JWT with a2a:write; without it the token may read but not write (403)', async () => {
    const writer = await sdkClient(binding, {
      Authorization: `Bearer ${await idp.token({ sub: 'carol', aud: AUDIENCE, scope: 'a2a:write' })}`,
    });
    const task = await send(writer, 'echo hi');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const readerToken = await idp.token({ sub: 'carol', aud: AUDIENCE, scope: 'a2a:read' });
    const sent = await call(
      target,
      binding,
      'SendMessage',
      { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'echo hi' }] } },
      { Authorization: `Bearer ${readerToken}` },
    );
    expect(sent.status).toBe('PERMISSION_DENIED');
    const read = await call(target, binding, 'GetTask', { id: task.id }, { Authorization: `Bearer ${readerToken}` });
    expect(read.status).toBe('OK');
  });

  it('refuses a JWT for another audience', async () => {
    const token = await idp.token({ sub: 'carol', aud: 'someone-else', scope: 'a2a:write' });
    expect((await call(target, binding, 'ListTasks', {}, { Authorization: `Bearer ${token}` })).status).toBe(
      'UNAUTHENTICATED',
    );
  });

  it('GetExtendedAgentCard: 401 without a credential; the card plus conformance-extended with one', async () => {
    expect((await call(target, binding, 'GetExtendedAgentCard', {})).status).toBe('UNAUTHENTICATED');
    const outcome = await call(target, binding, 'GetExtendedAgentCard', {}, { 'X-API-Key': 'key-b' });
    expect((outcome.result as { skills: Array<{ id: string }> }).skills.map((skill) => skill.id)).toContain(
      'conformance-extended',
    );
    // Signed on its own: the public card's signatures do not cover the extra skill.
    const verified = await verifyAgentCard(outcome.result as unknown as AgentCard, {
      jwksUrl: `${agent.url}/.well-known/jwks.json`,
    });
    expect(verified.valid).toBe(true);
    expect(verified.card?.skills.map((skill) => skill.id)).toContain('conformance-extended');
  });
});
