import 'reflect-metadata';
import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  complete,
  mtlsScheme,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { connectA2aGrpc, grpcBinding, optionalClientCertificateCredentials } from '../../../libs/a2a/src/grpc.js';
import type { Task } from '../../../libs/a2a/src/client.js';
import { ALICE, createTestCertificates, type TestCertificates } from '../../fixtures/test-certificates.js';
import { freePort } from '../../fixtures/grpc-json.client.js';
import { CLIENT_BINDINGS, clientFor } from './fixtures/client-targets.js';

/**
 * mTLS (`credentials.mtls`, trust in `tls.ca`): the client certificate goes with every https connection and every gRPC
 * channel, and satisfies the card's `mtlsSecurityScheme`; the SSRF guard's post-connect check still runs before TLS.
 */
@AgentSkill({ id: 'whoami', name: 'Who am I', description: 'Answers with the caller', tags: ['test'], default: true })
class WhoAmISkill extends A2aSkillHandler {
  handle(context: SkillContext): SkillEvent[] {
    return [complete(context.principal.id)];
  }
}

let certs: TestCertificates;
let app: INestApplication;
let origin: string;

beforeAll(async () => {
  certs = await createTestCertificates();
  const [port, grpcPort] = [await freePort(), await freePort()];
  origin = `https://127.0.0.1:${port}`;
  const credentials = optionalClientCertificateCredentials({
    ca: certs.ca.cert,
    key: certs.server.key,
    cert: certs.server.cert,
  });
  @Module({
    imports: [
      A2aModule.forRoot({
        card: { name: 'mTLS agent', description: 'Serves verified workloads' },
        baseUrl: origin,
        bindings: [grpcBinding({ url: `127.0.0.1:${grpcPort}`, credentials })],
        security: { schemes: { mtls: mtlsScheme({ allowedSubjects: [ALICE] }) } },
      }),
    ],
    providers: [WhoAmISkill],
  })
  class MtlsModule {}
  const moduleRef = await Test.createTestingModule({ imports: [MtlsModule] }).compile();
  app = moduleRef.createNestApplication({
    httpsOptions: {
      key: certs.server.key,
      cert: certs.server.cert,
      ca: certs.ca.cert,
      requestCert: true,
      rejectUnauthorized: false,
    },
    logger: false,
  });
  connectA2aGrpc(app);
  await app.startAllMicroservices();
  await app.listen(port, '127.0.0.1');
});
afterAll(() => app?.close());

describe.each(CLIENT_BINDINGS)('over %s', (binding) => {
  it("alice's certificate makes her the principal", async () => {
    const client = clientFor(origin, binding, {
      tls: { ca: certs.ca.cert },
      credentials: { mtls: { cert: certs.alice.cert, key: certs.alice.key } },
    });
    const task = (await client.send('who am I?')) as Task;
    expect(task.status.message?.parts[0].text).toBe(`mtls:CN=Test CA|${ALICE}`);
    expect((await client.getTask(task.id)).id).toBe(task.id);
    await client.close();
  });

  it('without a certificate the agent answers Unauthenticated', async () => {
    const client = clientFor(origin, binding, { tls: { ca: certs.ca.cert } });
    await expect(client.send('who am I?')).rejects.toMatchObject({ kind: 'Unauthenticated' });
    await client.close();
  });
});

it('an agent whose certificate the client does not trust is a Network error, not a silent downgrade', async () => {
  const client = clientFor(origin, 'JSONRPC', { tls: { ca: certs.rogueCa.cert }, retry: false });
  await expect(client.card()).rejects.toMatchObject({
    kind: 'CardUnavailable',
    message: expect.stringMatching(/certificate/i),
  });
  await client.close();
});
