import { randomUUID } from 'node:crypto';
import {
  A2aSkillHandler,
  AgentSkill,
  apiKeyScheme,
  complete,
  httpBasicScheme,
  type A2aSecurityOptions,
  type A2aSecurityScheme,
  type SchemeGrant,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { GrpcJsonClient, type Json } from '../../fixtures/grpc-json.client.js';
import { startGrpcProbeApp, type GrpcProbeApp } from '../../fixtures/grpc-probe.fixture.js';
import { BINDINGS, call, type Binding, type CallOutcome, type SecurityTarget } from '../../fixtures/security-calls.js';

/**
 * Option `security` on all three bindings (spec §7, §8.4, §13): one guard, the
 * same answers. API keys here (scopes from a key lookup); tokens in security-jwt.e2e-spec.ts, certificates in
 * security-mtls.e2e-spec.ts.
 */

/** The vault skill asks for a scope of its own on top of the card's requirements. */
@AgentSkill({
  id: 'vault',
  name: 'Vault',
  description: 'Needs the vault scope',
  tags: ['test'],
  security: [{ apiKey: ['vault'] }],
})
class VaultSkill extends A2aSkillHandler {
  async *handle(): AsyncIterable<SkillEvent> {
    yield complete('opened');
  }
}

const KEYS: Record<string, SchemeGrant> = {
  'key-alice-0001': { subject: 'alice', scopes: ['write'] },
  'key-bob-000002': { subject: 'bob', scopes: ['write'] },
  'key-reader-003': { subject: 'reader', scopes: [] },
  'key-keeper-004': { subject: 'keeper', scopes: ['write', 'vault'] },
};
const ALICE = { 'X-API-Key': 'key-alice-0001' };
const BOB = { 'X-API-Key': 'key-bob-000002' };
const READER = { 'X-API-Key': 'key-reader-003' };
const KEEPER = { 'X-API-Key': 'key-keeper-004' };
const basic = (user: string, password: string) => ({
  Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

/** A scheme whose identity provider is down: the SPI's `unavailable`. */
const unreachableIdp: A2aSecurityScheme = {
  declaration: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
  authenticate: (source) =>
    source.header('authorization')?.startsWith('Bearer ')
      ? { status: 'unavailable', reason: 'JWKS timeout' }
      : { status: 'absent' },
  challenge: () => 'Bearer realm="a2a"',
};

const security: A2aSecurityOptions = {
  schemes: {
    apiKey: apiKeyScheme({ in: 'header', name: 'X-API-Key', verify: (key) => KEYS[key] }),
    basic: httpBasicScheme({
      verify: (user, password) =>
        user === 'carol' && password === 'pä:ss' ? { subject: 'carol', scopes: ['write'] } : undefined,
    }),
    idp: unreachableIdp,
  },
  requirements: [{ apiKey: [] }, { basic: [] }, { idp: [] }],
  operations: {
    SendMessage: [{ apiKey: ['write'] }, { basic: ['write'] }],
    CancelTask: [{ apiKey: ['write'] }, { basic: ['write'] }],
  },
  tenantPolicy: (principal, tenant) => tenant === '' || tenant === `tenant-${principal.subject}`,
  extendedCard: (_principal, card) => ({
    ...card,
    skills: [...card.skills, { id: 'extended', name: 'Extended', description: 'Only for callers', tags: ['x'] }],
  }),
  maxActiveTasksPerPrincipal: 2,
};

let probe: GrpcProbeApp;
let target: SecurityTarget;

beforeAll(async () => {
  probe = await startGrpcProbeApp({ a2a: { security }, providers: [VaultSkill] });
  target = { httpUrl: probe.httpUrl, grpc: new GrpcJsonClient(probe.grpcAddress) };
});
afterAll(async () => {
  target?.grpc.close();
  await probe?.app.close();
});

const message = (text: string, extra: Json = {}): Json => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});
const send = (text: string, extra: Json = {}): Json => ({ message: message(text, extra) });

async function createTask(binding: Binding, credentials: Record<string, string>, tenant?: string): Promise<string> {
  const outcome = await call(target, binding, 'SendMessage', send('echo hi'), credentials, tenant);
  expect(outcome.status).toBe('OK');
  return (outcome.result as { task: { id: string } }).task.id;
}

function expectUnauthenticated(outcome: CallOutcome, binding: Binding): void {
  expect(outcome.status).toBe('UNAUTHENTICATED');
  if (binding !== 'GRPC') expect(outcome.httpStatus).toBe(401);
  if (binding === 'JSONRPC') expect(outcome.jsonRpcCode).toBe(-31401);
  expect(outcome.wwwAuthenticate).toEqual(
    expect.arrayContaining(['ApiKey realm="a2a", in="header", name="X-API-Key"', 'Basic realm="a2a", charset="UTF-8"']),
  );
}

function expectDenied(outcome: CallOutcome, binding: Binding): void {
  expect(outcome.status).toBe('PERMISSION_DENIED');
  if (binding !== 'GRPC') expect(outcome.httpStatus).toBe(403);
  if (binding === 'JSONRPC') expect(outcome.jsonRpcCode).toBe(-31403);
}

describe('the card declares the schemes once', () => {
  it("is served without a credential, with securitySchemes, securityRequirements, the skill's requirement and extendedAgentCard", async () => {
    const response = await fetch(`${probe.httpUrl}/.well-known/agent-card.json`);
    expect(response.status).toBe(200);
    const card = (await response.json()) as Json & { skills: Json[] };
    expect(card.securitySchemes).toEqual({
      apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
      basic: { httpAuthSecurityScheme: { scheme: 'Basic' } },
      idp: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
    });
    expect(card.securityRequirements).toEqual([
      { schemes: { apiKey: { list: [] } } },
      { schemes: { basic: { list: [] } } },
      { schemes: { idp: { list: [] } } },
    ]);
    expect(card.skills.find((skill) => skill.id === 'vault')?.securityRequirements).toEqual([
      { schemes: { apiKey: { list: ['vault'] } } },
    ]);
    expect(card.capabilities).toMatchObject({ extendedAgentCard: true });
  });
});

describe.each(BINDINGS)('%s', (binding) => {
  it('#1 refuses a call without a credential: 401 with a challenge per scheme', async () => {
    expectUnauthenticated(await call(target, binding, 'SendMessage', send('echo hi')), binding);
    expectUnauthenticated(await call(target, binding, 'ListTasks', {}), binding);
    expectUnauthenticated(await call(target, binding, 'GetTask', { id: randomUUID() }), binding);
  });

  it('#13 refuses a wrong API key, of the same length or not', async () => {
    expectUnauthenticated(await call(target, binding, 'ListTasks', {}, { 'X-API-Key': 'key-alice-0002' }), binding);
    expectUnauthenticated(await call(target, binding, 'ListTasks', {}, { 'X-API-Key': 'k' }), binding);
    // Over the 8 KiB credential cap: refused before any lookup (node itself answers 431 past 16 KiB of headers).
    expectUnauthenticated(await call(target, binding, 'ListTasks', {}, { 'X-API-Key': 'k'.repeat(9 * 1024) }), binding);
  });

  it('#12 reads the key only where the scheme says (header); elsewhere it is no credential', async () => {
    const outcome =
      binding === 'GRPC'
        ? await call(target, binding, 'ListTasks', {}, { 'x-api-token': ALICE['X-API-Key'] })
        : await call(target, binding, 'ListTasks', { 'X-API-Key': ALICE['X-API-Key'] });
    expectUnauthenticated(outcome, binding);
  });

  it('serves a valid key, and the skill sees the principal', async () => {
    const outcome = await call(target, binding, 'SendMessage', send('context'), ALICE);
    expect(outcome.status).toBe('OK');
    const data = (outcome.result as { task: { artifacts: Array<{ parts: Array<{ data: Json }> }> } }).task.artifacts[0]
      .parts[0].data;
    expect(data.principal).toBe('apiKey:alice');
  });

  it('serves HTTP Basic (UTF-8, a colon in the password) and refuses a wrong password', async () => {
    expect((await call(target, binding, 'SendMessage', send('echo hi'), basic('carol', 'pä:ss'))).status).toBe('OK');
    expectUnauthenticated(await call(target, binding, 'ListTasks', {}, basic('carol', 'wrong')), binding);
  });

  it('D3: a bad credential is refused even when another one would pass', async () => {
    expectUnauthenticated(
      await call(target, binding, 'ListTasks', {}, { ...ALICE, ...basic('carol', 'wrong') }),
      binding,
    );
  });

  it('answers 503 UNAVAILABLE with Retry-After when the identity provider cannot be asked, never a pass', async () => {
    const outcome = await call(target, binding, 'ListTasks', {}, { Authorization: 'Bearer eyJ.x.y' });
    expect(outcome.status).toBe('UNAVAILABLE');
    if (binding !== 'GRPC') expect(outcome.httpStatus).toBe(503);
    expect(outcome.retryAfter).toBe('5');
  });

  it("an operation's own requirement: a key without the write scope may read but not send or cancel (403)", async () => {
    expectDenied(await call(target, binding, 'SendMessage', send('echo hi'), READER), binding);
    const taskId = await createTask(binding, ALICE);
    expect((await call(target, binding, 'ListTasks', {}, READER)).status).toBe('OK');
    expectDenied(await call(target, binding, 'CancelTask', { id: taskId }, READER), binding);
  });

  it("#10 a skill's own requirement: refused before any task exists; served with the scope", async () => {
    const before = ((await call(target, binding, 'ListTasks', {}, ALICE)).result as { totalSize: number }).totalSize;
    expectDenied(
      await call(target, binding, 'SendMessage', send('open', { metadata: { 'nestjs-a2a/skillId': 'vault' } }), ALICE),
      binding,
    );
    expect(((await call(target, binding, 'ListTasks', {}, ALICE)).result as { totalSize: number }).totalSize).toBe(
      before,
    );
    const opened = await call(
      target,
      binding,
      'SendMessage',
      send('open', { metadata: { 'nestjs-a2a/skillId': 'vault' } }),
      KEEPER,
    );
    expect((opened.result as { task: { status: { state: string } } }).task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it("#16 another principal's task is TaskNotFound, answered exactly as a missing one", async () => {
    const taskId = await createTask(binding, ALICE);
    const foreign = await call(target, binding, 'GetTask', { id: taskId }, BOB);
    expect(foreign.status).toBe('NOT_FOUND');
    if (binding !== 'GRPC') {
      const missingId = `${taskId.slice(0, -4)}ffff`;
      const missing = await call(target, binding, 'GetTask', { id: missingId }, BOB);
      expect(foreign.httpStatus).toBe(missing.httpStatus);
      expect(foreign.errorBody!.replaceAll(taskId, 'ID')).toBe(missing.errorBody!.replaceAll(missingId, 'ID'));
    }
  });

  it('#17 another principal cannot cancel or subscribe to a task, and it is left unchanged', async () => {
    const started = await call(
      target,
      binding,
      'SendMessage',
      { ...send('slow 400'), configuration: { returnImmediately: true } },
      ALICE,
    );
    const taskId = (started.result as { task: { id: string } }).task.id;
    expect((await call(target, binding, 'CancelTask', { id: taskId }, BOB)).status).toBe('NOT_FOUND');
    expect((await call(target, binding, 'SubscribeToTask', { id: taskId }, BOB)).status).toBe('NOT_FOUND');
    const mine = await call(target, binding, 'GetTask', { id: taskId }, ALICE);
    expect((mine.result as { status: { state: string } }).status.state).not.toBe('TASK_STATE_CANCELED');
    expect((await call(target, binding, 'CancelTask', { id: taskId }, ALICE)).status).toBe('OK');
  });

  it("#18 ListTasks lists and counts only the caller's tasks; another's page token is refused", async () => {
    await createTask(binding, ALICE);
    await createTask(binding, ALICE);
    const bobTask = await createTask(binding, BOB);
    const bob = (await call(target, binding, 'ListTasks', { pageSize: 1 }, BOB)).result as {
      tasks: Array<{ id: string }>;
      totalSize: number;
      nextPageToken: string;
    };
    const alice = (await call(target, binding, 'ListTasks', { pageSize: 1 }, ALICE)).result as {
      tasks: Array<{ id: string }>;
      totalSize: number;
      nextPageToken: string;
    };
    expect(bob.tasks.map((task) => task.id)).toEqual([bobTask]);
    expect(alice.totalSize).toBeGreaterThanOrEqual(2);
    expect(alice.tasks.map((task) => task.id)).not.toContain(bobTask);
    expect(bob.totalSize).toBeLessThan(alice.totalSize + 100);
    const all = (await call(target, binding, 'ListTasks', { pageSize: 100 }, BOB)).result as {
      tasks: Array<{ id: string }>;
    };
    const aliceAll = (await call(target, binding, 'ListTasks', { pageSize: 100 }, ALICE)).result as {
      tasks: Array<{ id: string }>;
    };
    expect(all.tasks.some((task) => aliceAll.tasks.some((a) => a.id === task.id))).toBe(false);
    const replayed = await call(target, binding, 'ListTasks', { pageSize: 1, pageToken: alice.nextPageToken }, BOB);
    expect(replayed.status).toBe('INVALID_ARGUMENT');
  });

  it('#19 a principal may use its own tenant only (403 elsewhere), and tasks stay in their tenant', async () => {
    const taskId = await createTask(binding, ALICE, 'tenant-alice');
    expectDenied(await call(target, binding, 'ListTasks', {}, ALICE, 'tenant-bob'), binding);
    expectDenied(await call(target, binding, 'SendMessage', send('echo hi'), ALICE, 'tenant-bob'), binding);
    expect((await call(target, binding, 'GetTask', { id: taskId }, ALICE, 'tenant-alice')).status).toBe('OK');
    expect((await call(target, binding, 'GetTask', { id: taskId }, ALICE)).status).toBe('NOT_FOUND');
  });

  it("#20 the extended card: 401 without a credential; the caller's card with one, marked private", async () => {
    expectUnauthenticated(await call(target, binding, 'GetExtendedAgentCard', {}), binding);
    const outcome = await call(target, binding, 'GetExtendedAgentCard', {}, BOB);
    expect(outcome.status).toBe('OK');
    expect((outcome.result as { skills: Json[] }).skills.map((skill) => skill.id)).toContain('extended');
    if (binding !== 'GRPC') expect(outcome.cacheControl).toBe('private, no-store');
  });

  it('caps the tasks one principal may have running (429 / RESOURCE_EXHAUSTED); others are not affected', async () => {
    // A new messageId each time: a repeated one would be a retry of the same send (idempotent), not another task.
    const slow = () => ({ ...send('slow 1500'), configuration: { returnImmediately: true } });
    const running = [
      await call(target, binding, 'SendMessage', slow(), KEEPER),
      await call(target, binding, 'SendMessage', slow(), KEEPER),
    ];
    expect(running.map((outcome) => outcome.status)).toEqual(['OK', 'OK']);
    const third = await call(target, binding, 'SendMessage', slow(), KEEPER);
    expect(third.status).toBe('RESOURCE_EXHAUSTED');
    if (binding !== 'GRPC') expect(third.httpStatus).toBe(429);
    expect((await call(target, binding, 'SendMessage', send('echo hi'), BOB)).status).toBe('OK');
    for (const outcome of running)
      await call(target, binding, 'CancelTask', { id: (outcome.result as { task: { id: string } }).task.id }, KEEPER);
  });
});
