import 'reflect-metadata';
import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { A2aModule, A2aSkillHandler, AgentSkill, complete } from '../../../libs/a2a/src/index.js';
import { createTestApplication, TEST_HTTP_ADAPTER } from '../../fixtures/test-app.js';

/**
 * What a client gets on a path the module does not serve, on the suites' HTTP adapter (`npm run test:fastify` runs this
 * file on Fastify too): a 404 in the shape of the binding whose mount the path falls under, naming where the binding is
 * really served (a forgotten or extra global prefix), and a 405 with `Allow` only on a served path with the wrong method.
 */

@AgentSkill({ id: 'echo', name: 'Echo', description: 'Echoes', tags: ['test'] })
class EchoSkill extends A2aSkillHandler {
  handle() {
    return [complete('echoed')];
  }
}

interface Answer {
  status: number;
  allow: string | null;
  body: any;
}

async function call(method: string, url: string, body?: string): Promise<Answer> {
  const res = await fetch(url, {
    method,
    headers: { 'A2A-Version': '1.0', ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    body,
  });
  const text = await res.text();
  return { status: res.status, allow: res.headers.get('allow'), body: text ? JSON.parse(text) : undefined };
}

const SEND = JSON.stringify({
  message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
});
const RPC_SEND = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: JSON.parse(SEND) });

function expectRest(answer: Answer, code: number, reason: string, message: string): void {
  expect(answer.status).toBe(code);
  expect(answer.body.error).toMatchObject({ code, message });
  expect(answer.body.error.details).toContainEqual(expect.objectContaining({ reason, domain: 'a2a-protocol.org' }));
}

function expectJsonRpc(answer: Answer, httpStatus: number, code: number, reason: string, message: string): void {
  expect(answer.status).toBe(httpStatus);
  expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code, message } });
  expect(answer.body.error.data).toContainEqual(expect.objectContaining({ reason }));
}

async function start(module: unknown, globalPrefix?: string): Promise<{ app: INestApplication; url: string }> {
  const moduleRef = await Test.createTestingModule({ imports: [module as never] }).compile();
  const app = createTestApplication(moduleRef);
  if (globalPrefix) app.setGlobalPrefix(globalPrefix);
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}

@Module({
  imports: [A2aModule.forRoot({ card: { name: 'Prefixed', description: 'Under a global prefix' } })],
  providers: [EchoSkill],
})
class DefaultMountsModule {}

@Module({
  imports: [
    A2aModule.forRoot({
      card: { name: 'Mounted', description: 'Custom mounts' },
      jsonRpc: { path: 'rpc' },
      rest: { path: 'v1' },
    }),
  ],
  providers: [EchoSkill],
})
class CustomMountsModule {}

describe(`paths the module does not serve, on ${TEST_HTTP_ADAPTER}`, () => {
  describe('default mounts under the global prefix /api', () => {
    let app: INestApplication;
    let url: string;

    beforeAll(async () => {
      ({ app, url } = await start(DefaultMountsModule, 'api'));
    });
    afterAll(() => app.close());

    it('serves both bindings under the prefix', async () => {
      expect((await call('POST', `${url}/api/a2a/rest/message:send`, SEND)).status).toBe(200);
      const rpc = await call('POST', `${url}/api/a2a/jsonrpc`, RPC_SEND);
      expect(rpc.status).toBe(200);
      expect(rpc.body.result).toBeDefined();
    });

    it('a forgotten prefix on HTTP+JSON → 404 METHOD_NOT_FOUND naming where the binding is, no Allow', async () => {
      const answer = await call('POST', `${url}/a2a/rest/message:send`, SEND);
      expectRest(
        answer,
        404,
        'METHOD_NOT_FOUND',
        'No A2A HTTP+JSON operation is served at /a2a/rest/message:send: the agent serves them under /api/a2a/rest',
      );
      expect(answer.allow).toBeNull();
    });

    it('a forgotten prefix on JSON-RPC → HTTP 404 with a JSON-RPC -32601 error naming the endpoint', async () => {
      const answer = await call('POST', `${url}/a2a/jsonrpc`, RPC_SEND);
      expectJsonRpc(
        answer,
        404,
        -32601,
        'METHOD_NOT_FOUND',
        "No A2A JSON-RPC endpoint is served at /a2a/jsonrpc: the agent's is at /api/a2a/jsonrpc",
      );
      expect(answer.allow).toBeNull();
    });

    it('a forgotten prefix with a body that does not parse → still the 404, on both bindings', async () => {
      expectRest(
        await call('POST', `${url}/a2a/rest/message:send`, '{"message":'),
        404,
        'METHOD_NOT_FOUND',
        'No A2A HTTP+JSON operation is served at /a2a/rest/message:send: the agent serves them under /api/a2a/rest',
      );
      expect((await call('POST', `${url}/a2a/jsonrpc`, '{"jsonrpc":')).status).toBe(404);
    });

    it('the served HTTP+JSON path with another method → 405 with Allow and a message naming both methods', async () => {
      const answer = await call('GET', `${url}/api/a2a/rest/message:send`);
      expectRest(answer, 405, 'METHOD_NOT_ALLOWED', '/api/a2a/rest/message:send is served with POST, not GET');
      expect(answer.allow).toBe('POST');
      const tasks = await call('DELETE', `${url}/api/a2a/rest/tasks`);
      expectRest(tasks, 405, 'METHOD_NOT_ALLOWED', '/api/a2a/rest/tasks is served with GET, not DELETE');
      expect(tasks.allow).toBe('GET');
    });

    it('the served JSON-RPC endpoint with another method → 405 with Allow: POST', async () => {
      const answer = await call('GET', `${url}/api/a2a/jsonrpc`);
      expectJsonRpc(answer, 405, -32600, 'METHOD_NOT_ALLOWED', 'JSON-RPC requests are sent with POST, not GET');
      expect(answer.allow).toBe('POST');
    });

    it('an unknown operation under the served prefix → 404 METHOD_NOT_FOUND', async () => {
      expectRest(
        await call('POST', `${url}/api/a2a/rest/message:translate`, SEND),
        404,
        'METHOD_NOT_FOUND',
        'No A2A HTTP+JSON operation is served at /api/a2a/rest/message:translate',
      );
    });

    it("leaves the app's other paths to Nest", async () => {
      const answer = await call('GET', `${url}/api/somewhere/else`);
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ statusCode: 404 });
    });
  });

  describe('custom mounts (jsonRpc: rpc, rest: v1), no global prefix', () => {
    let app: INestApplication;
    let url: string;

    beforeAll(async () => {
      ({ app, url } = await start(CustomMountsModule));
    });
    afterAll(() => app.close());

    it('an extra prefix before a mount → 404 in the binding’s shape naming where it is served', async () => {
      expectRest(
        await call('POST', `${url}/api/v1/message:send`, SEND),
        404,
        'METHOD_NOT_FOUND',
        'No A2A HTTP+JSON operation is served at /api/v1/message:send: the agent serves them under /v1',
      );
      expectJsonRpc(
        await call('POST', `${url}/api/rpc`, RPC_SEND),
        404,
        -32601,
        'METHOD_NOT_FOUND',
        "No A2A JSON-RPC endpoint is served at /api/rpc: the agent's is at /rpc",
      );
    });

    it('a served path with the wrong method → 405 with Allow', async () => {
      const answer = await call('DELETE', `${url}/v1/tasks/t-1/pushNotificationConfigs`);
      expectRest(
        answer,
        405,
        'METHOD_NOT_ALLOWED',
        '/v1/tasks/t-1/pushNotificationConfigs is served with GET or POST, not DELETE',
      );
      expect(answer.allow).toBe('GET, POST');
      const rpc = await call('PUT', `${url}/rpc`);
      expectJsonRpc(rpc, 405, -32600, 'METHOD_NOT_ALLOWED', 'JSON-RPC requests are sent with POST, not PUT');
      expect(rpc.allow).toBe('POST');
    });
  });
});
