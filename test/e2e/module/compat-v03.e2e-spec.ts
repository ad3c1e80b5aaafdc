import 'reflect-metadata';
import { jest } from '@jest/globals';
import { verifyAgentCardSignature } from '@a2a-js/sdk';
import { Module, type INestApplication } from '@nestjs/common';
import { generateKeyPairSync } from 'node:crypto';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  artifact,
  cardSigningKeyFromPem,
  complete,
  reply,
  requireInput,
  verifyAgentCard,
  working,
  type A2aModuleOptions,
  type AgentCard,
  type CardSigningKey,
  type SkillContext,
} from '../../../libs/a2a/src/index.js';
import { startTestApp, TEST_HTTP_ADAPTER } from '../../fixtures/test-app.js';

/**
 * Option `compat.v03` on the wire (issue 13 item 5): v0.3 JSON-RPC calls, streams and errors in v0.3's shapes, v1.0
 * calls unchanged beside them, the card's two views; and, without the option, v0.3 calls refused exactly as before.
 * test/e2e/interop/sdk-v03-client.e2e-spec.ts has @a2a-js/sdk's v0.3 client against the conformance agent.
 */

@AgentSkill({
  id: 'compat',
  name: 'Compat',
  description: 'ask, reply, data; anything else is echoed as an artifact',
  tags: ['test'],
})
class CompatSkill extends A2aSkillHandler {
  handle(context: SkillContext) {
    switch (context.text) {
      case 'ask':
        return [working(), requireInput('Which one?')];
      case 'reply':
        return [reply('hi there')];
      case 'data':
        return [
          artifact({ data: [1, 2] }),
          artifact({ data: { ok: true } }),
          artifact([{ raw: Buffer.from('hi').toString('base64'), mediaType: 'text/plain', filename: 'a.txt' }]),
          complete(),
        ];
      default:
        return [working(), artifact(`echo: ${context.text}`, { name: 'echo' }), complete()];
    }
  }
}

const EXTENSION = 'urn:test:compat-ext';
const privatePem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;

async function start(options: Partial<A2aModuleOptions>): Promise<{ app: INestApplication; url: string }> {
  @Module({
    imports: [
      A2aModule.forRoot({
        card: { name: 'Compat agent', description: 'v0.3 and v1.0' },
        extensions: [{ uri: EXTENSION }],
        ...options,
      }),
    ],
    providers: [CompatSkill],
  })
  class CompatModule {}
  return startTestApp(CompatModule);
}

interface Rpc {
  status: number;
  headers: Headers;
  body: { jsonrpc: string; id: unknown; result?: any; error?: { code: number; message: string; data: unknown[] } };
}

const v03Message = (text: string, extra: Record<string, unknown> = {}) => ({
  kind: 'message',
  messageId: `m-${Math.random()}`,
  role: 'user',
  parts: [{ kind: 'text', text }],
  ...extra,
});
const v1Message = (text: string) => ({ messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] });

describe(`option compat.v03 (${TEST_HTTP_ADAPTER})`, () => {
  let app: INestApplication;
  let url: string;
  let key: CardSigningKey;
  let endpoint: string;

  const rpc = async (
    method: string,
    params: unknown,
    headers: Record<string, string> = {},
    id: unknown = 7,
  ): Promise<Rpc> => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Rpc['body'] };
  };
  /** The `data:` payloads of an SSE answer, parsed, once the stream has ended. */
  const sse = async (method: string, params: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'sse-1', method, params }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await res.text();
    return {
      headers: res.headers,
      frames: text
        .split('\n\n')
        .map((block) => block.split('\n').find((line) => line.startsWith('data: ')))
        .filter((line): line is string => line !== undefined)
        .map((line) => JSON.parse(line.slice(6)) as Rpc['body']),
    };
  };

  beforeAll(async () => {
    key = await cardSigningKeyFromPem(privatePem);
    ({ app, url } = await start({ compat: { v03: true }, cardSigning: { keys: [key] } }));
    endpoint = `${url}/a2a/jsonrpc`;
  });
  afterAll(() => app?.close());

  describe('v0.3 calls (no A2A-Version, v0.3 method names)', () => {
    it('message/send: a task in v0.3 shape (kind, lowercase state and role, kind on parts)', async () => {
      const message = v03Message('hello');
      const { status, body } = await rpc('message/send', { message });
      expect(status).toBe(200);
      expect(body.id).toBe(7);
      const task = body.result;
      expect(task).toMatchObject({
        kind: 'task',
        status: { state: 'completed' },
        artifacts: [{ name: 'echo', parts: [{ kind: 'text', text: 'echo: hello' }] }],
      });
      expect(task.history).toContainEqual(
        expect.objectContaining({
          kind: 'message',
          messageId: message.messageId,
          role: 'user',
          parts: [{ kind: 'text', text: 'hello' }],
        }),
      );
      expect(JSON.stringify(task)).not.toMatch(/TASK_STATE_|ROLE_/);
    });

    it('message/send answered by a direct message, and data/file parts (a non-object value wrapped)', async () => {
      expect((await rpc('message/send', { message: v03Message('reply') })).body.result).toMatchObject({
        kind: 'message',
        role: 'agent',
        parts: [{ kind: 'text', text: 'hi there' }],
      });
      const task = (await rpc('message/send', { message: v03Message('data') })).body.result;
      expect(task.artifacts.map((a: { parts: unknown[] }) => a.parts[0])).toEqual([
        { kind: 'data', data: { value: [1, 2] }, metadata: { data_part_compat: true } },
        { kind: 'data', data: { ok: true } },
        { kind: 'file', file: { bytes: Buffer.from('hi').toString('base64'), mimeType: 'text/plain', name: 'a.txt' } },
      ]);
    });

    it('takes v0.3 file and data parts in, and the task keeps them in v1.0 form', async () => {
      const message = v03Message('x', {
        parts: [
          { kind: 'text', text: 'files' },
          { kind: 'file', file: { uri: 'https://example.com/a.pdf', mimeType: 'application/pdf', name: 'a.pdf' } },
          { kind: 'data', data: { value: 'plain' }, metadata: { data_part_compat: true } },
        ],
      });
      const task = (await rpc('message/send', { message })).body.result;
      const v1 = (await rpc('GetTask', { id: task.id })).body.result;
      expect(v1.history[0].parts).toEqual([
        { text: 'files' },
        { url: 'https://example.com/a.pdf', mediaType: 'application/pdf', filename: 'a.pdf' },
        { data: 'plain' },
      ]);
      expect((await rpc('tasks/get', { id: task.id })).body.result.history[0].parts).toEqual(message.parts);
    });

    it('message/stream: SSE frames are v0.3 JSON-RPC responses; only the last status update is final', async () => {
      const { frames } = await sse('message/stream', { message: v03Message('streamed') });
      expect(frames.every((frame) => frame.jsonrpc === '2.0' && frame.id === 'sse-1')).toBe(true);
      // The skill's first event (WORKING) creates the task, which is the first frame.
      expect(frames.map((frame) => frame.result.kind)).toEqual(['task', 'artifact-update', 'status-update']);
      expect(frames[0].result.status.state).toBe('working');
      expect(frames[2].result).toMatchObject({ status: { state: 'completed' }, final: true });
    });

    it('message/stream ends at input-required, which is final', async () => {
      const { frames } = await sse('message/stream', { message: v03Message('ask') });
      expect(frames).toHaveLength(2);
      const last = frames.at(-1)!.result;
      expect(last).toMatchObject({
        kind: 'status-update',
        final: true,
        status: {
          state: 'input-required',
          message: { kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'Which one?' }] },
        },
      });
    });

    it('tasks/get, tasks/cancel and errors keep their JSON-RPC codes (-32001 TaskNotFound, -32002 TaskNotCancelable)', async () => {
      const task = (await rpc('message/send', { message: v03Message('x') })).body.result;
      expect((await rpc('tasks/get', { id: task.id, historyLength: 0 })).body.result).toMatchObject({
        kind: 'task',
        id: task.id,
        status: { state: 'completed' },
      });
      expect((await rpc('tasks/cancel', { id: task.id })).body.error?.code).toBe(-32002);
      const missing = await rpc('tasks/get', { id: 'no-such-task' }, {}, 'q');
      expect(missing.status).toBe(200);
      expect(missing.body).toMatchObject({ id: 'q', error: { code: -32001 } });
    });

    it('InvalidParams (-32602) for what v0.3 does not allow, naming the v0.3 field', async () => {
      const { body } = await rpc('message/send', {
        message: v03Message('x', { parts: [{ kind: 'video', url: 'x' }] }),
      });
      expect(body.error?.code).toBe(-32602);
      expect(JSON.stringify(body.error?.data)).toContain('message.parts[0].kind');
      expect((await rpc('message/send', { message: v03Message('x', { role: 'agent' }) })).body.error?.code).toBe(
        -32602,
      );
      expect(
        (await rpc('message/send', { message: { kind: 'message', role: 'user', parts: [] } })).body.error?.code,
      ).toBe(-32602);
    });

    it('A2A-Version: 0.3 (header or query) is served the same; X-A2A-Extensions activates, and is echoed under both names', async () => {
      const byHeader = await rpc(
        'message/send',
        { message: v03Message('v') },
        { 'A2A-Version': '0.3', 'X-A2A-Extensions': EXTENSION },
      );
      expect(byHeader.body.result.kind).toBe('task');
      expect(byHeader.headers.get('x-a2a-extensions')).toBe(EXTENSION);
      expect(byHeader.headers.get('a2a-extensions')).toBe(EXTENSION);
      const byQuery = async (version: string, method: string) => {
        const res = await fetch(`${endpoint}?A2A-Version=${version}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { id: 'none' } }),
        });
        return ((await res.json()) as Rpc['body']).error?.code;
      };
      expect(await byQuery('0.3', 'tasks/get')).toBe(-32001);
      // The query parameter is read: 0.3 with a v1.0 name, 1.0 with a v0.3 name, are no methods.
      expect(await byQuery('0.3', 'GetTask')).toBe(-32601);
      expect(await byQuery('1.0', 'tasks/get')).toBe(-32601);
      expect(await byQuery('1.0', 'GetTask')).toBe(-32001);
      const { headers } = await sse('message/stream', { message: v03Message('e') }, { 'X-A2A-Extensions': EXTENSION });
      expect(headers.get('x-a2a-extensions')).toBe(EXTENSION);
    });

    it('agent/getAuthenticatedExtendedCard: UnsupportedOperation (-32004) without an extended card, as in v1.0', async () => {
      expect((await rpc('agent/getAuthenticatedExtendedCard', undefined)).body.error?.code).toBe(-32004);
    });
  });

  describe('v1.0 calls beside them, unchanged', () => {
    it('v1.0 methods without A2A-Version are v1.0 (no v0.3 client sends them, though spec §3.6.2 reads a missing version as 0.3)', async () => {
      const { body, headers } = await rpc(
        'SendMessage',
        { message: v1Message('one') },
        { 'A2A-Extensions': EXTENSION },
      );
      expect(body.result.task).toMatchObject({
        status: { state: 'TASK_STATE_COMPLETED' },
        artifacts: [{ parts: [{ text: 'echo: one' }] }],
      });
      expect(body.result.task).not.toHaveProperty('kind');
      expect(headers.get('a2a-extensions')).toBe(EXTENSION);
      expect(headers.get('x-a2a-extensions')).toBeNull();
      expect(
        (await rpc('SendMessage', { message: v1Message('two') }, { 'A2A-Version': '1.0' })).body.result.task.status
          .state,
      ).toBe('TASK_STATE_COMPLETED');
    });

    it('v1.0 streams keep v1.0 frames', async () => {
      const { frames } = await sse('SendStreamingMessage', { message: v1Message('s') });
      expect(frames.map((frame) => Object.keys(frame.result)[0])).toEqual(['task', 'artifactUpdate', 'statusUpdate']);
      expect(frames[2].result.statusUpdate).not.toHaveProperty('final');
    });

    it('a v0.3 method with A2A-Version 1.0, and a v1.0 method with A2A-Version 0.3: MethodNotFound (-32601)', async () => {
      expect((await rpc('message/send', { message: v03Message('x') }, { 'A2A-Version': '1.0' })).body.error?.code).toBe(
        -32601,
      );
      const crossed = await rpc('SendMessage', { message: v1Message('x') }, { 'A2A-Version': '0.3' });
      expect(crossed.body.error?.code).toBe(-32601);
      expect(crossed.body.error?.message).toContain('message/send');
    });

    it('another version is still VersionNotSupported (-32009)', async () => {
      expect((await rpc('SendMessage', { message: v1Message('x') }, { 'A2A-Version': '2.0' })).body.error?.code).toBe(
        -32009,
      );
    });

    it('the same task is readable in both versions', async () => {
      const task = (await rpc('message/send', { message: v03Message('both') })).body.result;
      expect((await rpc('GetTask', { id: task.id })).body.result.status.state).toBe('TASK_STATE_COMPLETED');
    });
  });

  describe('the card', () => {
    const getCard = (headers: Record<string, string> = {}, query = '') =>
      fetch(`${url}/.well-known/agent-card.json${query}`, { headers });

    it('lists the JSON-RPC endpoint a second time, with protocolVersion 0.3, after the 1.0 interfaces', async () => {
      const res = await getCard({ 'A2A-Version': '1.0' });
      const card = (await res.json()) as AgentCard & Record<string, unknown>;
      expect(card.supportedInterfaces.map((entry) => [entry.protocolBinding, entry.protocolVersion])).toEqual([
        ['JSONRPC', '1.0'],
        ['HTTP+JSON', '1.0'],
        ['JSONRPC', '0.3'],
      ]);
      expect(card.supportedInterfaces[2].url).toBe(card.supportedInterfaces[0].url);
      expect(card).not.toHaveProperty('url');
      expect(card).not.toHaveProperty('protocolVersion');
      expect(res.headers.get('vary')).toMatch(/A2A-Version/i);
    });

    it('without A2A-Version (or with 0.3): the same card with v0.3 fields added, its own ETag', async () => {
      const v1 = await getCard({ 'A2A-Version': '1.0' });
      const bare = await getCard();
      const v1Card = (await v1.json()) as Record<string, unknown>;
      const view = (await bare.json()) as Record<string, unknown>;
      const jsonRpcUrl = (v1Card as unknown as AgentCard).supportedInterfaces[0].url;
      expect(jsonRpcUrl).toMatch(/\/a2a\/jsonrpc$/);
      expect(view).toMatchObject({
        protocolVersion: '0.3.0',
        url: jsonRpcUrl,
        preferredTransport: 'JSONRPC',
        additionalInterfaces: [{ url: jsonRpcUrl, transport: 'JSONRPC' }],
      });
      expect(view.supportsAuthenticatedExtendedCard).toBe(false);
      const {
        protocolVersion: _p,
        url: _u,
        preferredTransport: _t,
        additionalInterfaces: _a,
        supportsAuthenticatedExtendedCard: _s,
        ...rest
      } = view;
      expect(rest).toEqual(v1Card);
      expect(bare.headers.get('etag')).not.toBe(v1.headers.get('etag'));
      expect(bare.headers.get('vary')).toMatch(/A2A-Version/i);
      expect(await (await getCard({ 'A2A-Version': '0.3' })).json()).toEqual(view);
      expect(await (await getCard({}, '?A2A-Version=1.0')).json()).toEqual(v1Card);
    });

    it('answers If-None-Match per view', async () => {
      const v1Etag = (await getCard({ 'A2A-Version': '1.0' })).headers.get('etag')!;
      const v03Etag = (await getCard()).headers.get('etag')!;
      expect((await getCard({ 'if-none-match': v03Etag })).status).toBe(304);
      expect((await getCard({ 'if-none-match': v1Etag, 'A2A-Version': '1.0' })).status).toBe(304);
      expect((await getCard({ 'if-none-match': v1Etag })).status).toBe(200);
    });

    it('signatures verify on both views, with ours and with @a2a-js/sdk', async () => {
      const jwks = { keys: [{ ...key.publicJwk, kid: key.kid, alg: key.alg }] };
      const debug = jest.spyOn(console, 'debug').mockImplementation(() => undefined);
      try {
        for (const headers of [{ 'A2A-Version': '1.0' }, {}] as Array<Record<string, string>>) {
          const card = (await (await getCard(headers)).json()) as AgentCard;
          expect(card.signatures?.length).toBeGreaterThan(0);
          expect((await verifyAgentCard(card, { keys: jwks })).valid).toBe(true);
          await expect(verifyAgentCardSignature(async () => jwks.keys[0])(card as never)).resolves.toBeUndefined();
        }
      } finally {
        debug.mockRestore();
      }
    });
  });
});

describe(`without option compat (${TEST_HTTP_ADAPTER}): v0.3 is refused as before`, () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await start({}));
  });
  afterAll(() => app?.close());

  const rpc = async (method: string, params: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await res.json()) as Rpc['body'];
  };

  it('v0.3 method names: MethodNotFound (-32601), with or without A2A-Version 0.3', async () => {
    for (const method of [
      'message/send',
      'message/stream',
      'tasks/get',
      'tasks/resubscribe',
      'tasks/pushNotificationConfig/set',
      'agent/getAuthenticatedExtendedCard',
    ]) {
      expect((await rpc(method, { message: v03Message('x'), id: 't' })).error?.code).toBe(-32601);
      expect((await rpc(method, { message: v03Message('x'), id: 't' }, { 'A2A-Version': '0.3' })).error?.code).toBe(
        -32601,
      );
    }
  });

  it('A2A-Version 0.3 with a v1.0 method: VersionNotSupported (-32009)', async () => {
    expect((await rpc('SendMessage', { message: v1Message('x') }, { 'A2A-Version': '0.3' })).error?.code).toBe(-32009);
  });

  it('the card has no 0.3 interface, no v0.3 field, no Vary, whoever asks', async () => {
    const bare = await fetch(`${url}/.well-known/agent-card.json`);
    const card = (await bare.json()) as AgentCard & Record<string, unknown>;
    expect(card.supportedInterfaces.map((entry) => entry.protocolVersion)).toEqual(['1.0', '1.0']);
    expect(card).not.toHaveProperty('url');
    expect(bare.headers.get('vary')).toBeNull();
    const v1 = await fetch(`${url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    expect(v1.headers.get('etag')).toBe(bare.headers.get('etag'));
  });
});
