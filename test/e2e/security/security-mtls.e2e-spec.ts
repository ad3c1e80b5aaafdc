import 'reflect-metadata';
import * as grpc from '@grpc/grpc-js';
import { Module, type INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test, type TestingModule } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  complete,
  mtlsScheme,
  type A2aSecurityOptions,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { connectA2aGrpc, grpcBinding, optionalClientCertificateCredentials } from '../../../libs/a2a/src/grpc.js';
import {
  ALICE,
  createTestCertificates,
  type KeyAndCertificate,
  type TestCertificates,
} from '../../fixtures/test-certificates.js';
import { freePort, GrpcJsonClient, type Json } from '../../fixtures/grpc-json.client.js';
import { startGrpcProbeApp, type GrpcProbeApp } from '../../fixtures/grpc-probe.fixture.js';
import { TEST_HTTP_ADAPTER } from '../../fixtures/test-app.js';

/**
 * Client certificates (mTLS) on all three bindings (spec §4.5.6, §7.4): HTTPS that asks for a
 * certificate without requiring one, gRPC with optional and with mandatory client certificates. Certificates that do
 * not verify (rogue CA, expired) are refused by TLS, or reach the guard as an invalid credential (HTTPS) or as no
 * certificate at all (optional gRPC: grpc-js does not pass unverified ones on).
 */

@AgentSkill({ id: 'whoami', name: 'Who am I', description: 'Answers with the caller', tags: ['test'], default: true })
class WhoAmISkill extends A2aSkillHandler {
  handle(context: SkillContext): SkillEvent[] {
    return [complete(context.principal.id)];
  }
}

const security: A2aSecurityOptions = { schemes: { mtls: mtlsScheme({ allowedSubjects: [ALICE] }) } };
const send = (): Json => ({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'who am I?' }] } });

let certs: TestCertificates;
/** Who calls: no certificate, or one of the fixture's. */
type Caller = 'none' | 'alice' | 'mallory' | 'expiredAlice' | 'rogueAlice';
const identityOf = (caller: Caller): KeyAndCertificate | undefined => (caller === 'none' ? undefined : certs[caller]);

interface ClientCertificateHttps {
  key: string;
  cert: string;
  ca: string;
  requestCert: boolean;
  rejectUnauthorized: boolean;
}

/** Nest's HTTPS options on the suites' adapter: Express takes `httpsOptions`, Fastify's adapter `https`. */
function createHttpsApplication(moduleRef: TestingModule, https: ClientCertificateHttps): INestApplication {
  return TEST_HTTP_ADAPTER === 'fastify'
    ? moduleRef.createNestApplication(new FastifyAdapter({ https }), { logger: false })
    : moduleRef.createNestApplication({ httpsOptions: https, logger: false });
}

interface HttpsReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Json;
}

/** One HTTPS call on a fresh connection (so the TLS handshake, and its certificate, is this call's own). */
function callHttps(
  port: number,
  caller: Caller,
  method: 'GET' | 'POST',
  path: string,
  body?: Json,
): Promise<HttpsReply> {
  const identity = identityOf(caller);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        ca: certs.ca.cert,
        ...(identity ? { key: identity.key, cert: identity.cert } : {}),
        headers: { 'a2a-version': '1.0', ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) as Json }));
      },
    );
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

/** A gRPC client presenting `caller`'s certificate; it dials `localhost`, a name the server certificate holds. */
function grpcClientOf(address: string, caller: Caller): GrpcJsonClient {
  const identity = identityOf(caller);
  const credentials = grpc.credentials.createSsl(
    Buffer.from(certs.ca.cert),
    identity ? Buffer.from(identity.key) : null,
    identity ? Buffer.from(identity.cert) : null,
  );
  return new GrpcJsonClient(address.replace('127.0.0.1', 'localhost'), undefined, credentials);
}

async function grpcFailure(call: Promise<unknown>): Promise<grpc.ServiceError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e as grpc.ServiceError,
  );
  expect(error).toBeDefined();
  return error!;
}

beforeAll(async () => {
  certs = await createTestCertificates();
});

describe('optional mTLS: HTTPS asks for a certificate, gRPC with optionalClientCertificateCredentials', () => {
  let app: INestApplication;
  let port: number;
  let grpcAddress: string;
  const clients = new Map<Caller, GrpcJsonClient>();
  const grpcOf = (caller: Caller) =>
    clients.get(caller) ?? clients.set(caller, grpcClientOf(grpcAddress, caller)).get(caller)!;

  beforeAll(async () => {
    grpcAddress = `127.0.0.1:${await freePort()}`;
    const credentials = optionalClientCertificateCredentials({
      ca: certs.ca.cert,
      key: certs.server.key,
      cert: certs.server.cert,
    });
    @Module({
      imports: [
        A2aModule.forRoot({
          card: { name: 'mTLS agent', description: 'Serves verified workloads' },
          bindings: [grpcBinding({ url: grpcAddress, credentials })],
          security,
        }),
      ],
      providers: [WhoAmISkill],
    })
    class MtlsModule {}
    const moduleRef = await Test.createTestingModule({ imports: [MtlsModule] }).compile();
    // rejectUnauthorized false: a bad certificate still completes the handshake, so the caller gets a 401, not a TLS alert.
    app = createHttpsApplication(moduleRef, {
      key: certs.server.key,
      cert: certs.server.cert,
      ca: certs.ca.cert,
      requestCert: true,
      rejectUnauthorized: false,
    });
    connectA2aGrpc(app);
    await app.startAllMicroservices();
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const client of clients.values()) client.close();
    await app?.close();
  });

  it('declares the scheme in the card, which needs no certificate', async () => {
    const card = await callHttps(port, 'none', 'GET', '/.well-known/agent-card.json');
    expect(card.status).toBe(200);
    expect(card.body.securitySchemes).toEqual({ mtls: { mtlsSecurityScheme: {} } });
    expect(card.body.securityRequirements).toEqual([{ schemes: { mtls: { list: [] } } }]);
  });

  it('serves alice on JSON-RPC (SendMessage) and HTTP+JSON (GetTask), as principal mtls:<issuer DN>|<SPIFFE ID>', async () => {
    const sent = await callHttps(port, 'alice', 'POST', '/a2a/jsonrpc', {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: send(),
    });
    expect(sent.status).toBe(200);
    const task = (
      sent.body.result as {
        task: { id: string; status: { state: string; message: { parts: Array<{ text: string }> } } };
      }
    ).task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.status.message.parts[0].text).toBe(`mtls:CN=Test CA|${ALICE}`);
    const fetched = await callHttps(port, 'alice', 'GET', `/a2a/rest/tasks/${task.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body.id).toBe(task.id);
  });

  it('serves alice on gRPC (SendMessage, then GetTask)', async () => {
    const sent = (await grpcOf('alice').unary('SendMessage', send())) as {
      task: { id: string; status: { message: { parts: Array<{ text: string }> } } };
    };
    expect(sent.task.status.message.parts[0].text).toBe(`mtls:CN=Test CA|${ALICE}`);
    expect((await grpcOf('alice').unary('GetTask', { id: sent.task.id })).id).toBe(sent.task.id);
  });

  // TLS completes for all three (rejectUnauthorized false; authorizationError UNABLE_TO_GET_ISSUER_CERT,
  // UNABLE_TO_VERIFY_LEAF_SIGNATURE, CERT_HAS_EXPIRED); the scheme only ever sees verified certificates, so each is a
  // call without a credential. No WWW-Authenticate: mTLS has no challenge.
  it.each<Caller>(['none', 'rogueAlice', 'expiredAlice'])(
    '#14 refuses %s with 401 on JSON-RPC (-31401) and HTTP+JSON',
    async (caller) => {
      const jsonRpc = await callHttps(port, caller, 'POST', '/a2a/jsonrpc', {
        jsonrpc: '2.0',
        id: 2,
        method: 'SendMessage',
        params: send(),
      });
      expect(jsonRpc.status).toBe(401);
      expect((jsonRpc.body.error as { code: number }).code).toBe(-31401);
      expect(jsonRpc.headers['www-authenticate']).toBeUndefined();
      const rest = await callHttps(port, caller, 'GET', `/a2a/rest/tasks/${randomUUID()}`);
      expect(rest.status).toBe(401);
      expect((rest.body.error as { status: string }).status).toBe('UNAUTHENTICATED');
    },
  );

  // Optional client certificates: grpc-js completes the handshake and leaves sslPeerCertificate empty.
  it.each<Caller>(['none', 'rogueAlice', 'expiredAlice'])(
    '#14 refuses %s with UNAUTHENTICATED on gRPC',
    async (caller) => {
      expect((await grpcFailure(grpcOf(caller).unary('SendMessage', send()))).code).toBe(grpc.status.UNAUTHENTICATED);
    },
  );

  it('#15 refuses mallory (a valid chain, a subject not allowed) with 403 / -31403 and PERMISSION_DENIED', async () => {
    const jsonRpc = await callHttps(port, 'mallory', 'POST', '/a2a/jsonrpc', {
      jsonrpc: '2.0',
      id: 3,
      method: 'SendMessage',
      params: send(),
    });
    expect(jsonRpc.status).toBe(403);
    expect((jsonRpc.body.error as { code: number }).code).toBe(-31403);
    const rest = await callHttps(port, 'mallory', 'GET', `/a2a/rest/tasks/${randomUUID()}`);
    expect(rest.status).toBe(403);
    expect((rest.body.error as { status: string }).status).toBe('PERMISSION_DENIED');
    expect((await grpcFailure(grpcOf('mallory').unary('SendMessage', send()))).code).toBe(
      grpc.status.PERMISSION_DENIED,
    );
  });
});

describe('two trusted CAs that certify one subject', () => {
  let app: INestApplication;
  let port: number;
  let grpcAddress: string;
  const clients: GrpcJsonClient[] = [];
  const grpcOf = (caller: Caller) => {
    const client = grpcClientOf(grpcAddress, caller);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    grpcAddress = `127.0.0.1:${await freePort()}`;
    const both = `${certs.ca.cert}\n${certs.rogueCa.cert}`;
    const credentials = optionalClientCertificateCredentials({
      ca: both,
      key: certs.server.key,
      cert: certs.server.cert,
    });
    @Module({
      imports: [
        A2aModule.forRoot({
          card: { name: 'mTLS agent', description: 'Trusts two CAs' },
          bindings: [grpcBinding({ url: grpcAddress, credentials })],
          security,
        }),
      ],
      providers: [WhoAmISkill],
    })
    class TwoCasModule {}
    const moduleRef = await Test.createTestingModule({ imports: [TwoCasModule] }).compile();
    app = createHttpsApplication(moduleRef, {
      key: certs.server.key,
      cert: certs.server.cert,
      ca: both,
      requestCert: true,
      rejectUnauthorized: false,
    });
    connectA2aGrpc(app);
    await app.startAllMicroservices();
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await app?.close();
  });

  it("makes two owners, on every binding: one CA's alice does not see the other's tasks", async () => {
    const sent = await callHttps(port, 'alice', 'POST', '/a2a/jsonrpc', {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: send(),
    });
    const task = (sent.body.result as { task: { id: string; status: { message: { parts: Array<{ text: string }> } } } })
      .task;
    expect(task.status.message.parts[0].text).toBe(`mtls:CN=Test CA|${ALICE}`);
    const other = (await grpcOf('rogueAlice').unary('SendMessage', send())) as {
      task: { status: { message: { parts: Array<{ text: string }> } } };
    };
    expect(other.task.status.message.parts[0].text).toBe(`mtls:CN=Rogue CA|${ALICE}`);

    const rest = await callHttps(port, 'rogueAlice', 'GET', `/a2a/rest/tasks/${task.id}`);
    expect(rest.status).toBe(404);
    expect((rest.body.error as { status: string }).status).toBe('NOT_FOUND');
    expect((await grpcFailure(grpcOf('rogueAlice').unary('GetTask', { id: task.id }))).code).toBe(
      grpc.status.NOT_FOUND,
    );
    expect((await grpcOf('alice').unary('GetTask', { id: task.id })).id).toBe(task.id);
  });
});

describe('mandatory mTLS on gRPC: ServerCredentials.createSsl(ca, pairs, true)', () => {
  let probe: GrpcProbeApp;
  const clients: GrpcJsonClient[] = [];
  const grpcOf = (caller: Caller) => {
    const client = grpcClientOf(probe.grpcAddress, caller);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    const credentials = grpc.ServerCredentials.createSsl(
      Buffer.from(certs.ca.cert),
      [{ private_key: Buffer.from(certs.server.key), cert_chain: Buffer.from(certs.server.cert) }],
      true,
    );
    probe = await startGrpcProbeApp({ grpc: { credentials }, a2a: { security } });
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await probe?.app.close();
  });

  it('serves alice', async () => {
    const sent = (await grpcOf('alice').unary('SendMessage', {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'context' }] },
    })) as {
      task: { artifacts: Array<{ parts: Array<{ data: Json }> }> };
    };
    expect(sent.task.artifacts[0].parts[0].data.principal).toBe(`mtls:CN=Test CA|${ALICE}`);
  });

  // The server's TLS layer refuses the handshake (no certificate: a `certificate required` alert; rogue CA or expired:
  // the connection fails), so no call reaches the guard and the client sees UNAVAILABLE, not UNAUTHENTICATED.
  it.each<Caller>(['none', 'rogueAlice', 'expiredAlice'])('#14 %s fails the handshake: UNAVAILABLE', async (caller) => {
    expect((await grpcFailure(grpcOf(caller).unary('SendMessage', send()))).code).toBe(grpc.status.UNAVAILABLE);
  });

  it('#15 mallory passes TLS and is refused by the scheme: PERMISSION_DENIED', async () => {
    expect((await grpcFailure(grpcOf('mallory').unary('SendMessage', send()))).code).toBe(
      grpc.status.PERMISSION_DENIED,
    );
  });
});
