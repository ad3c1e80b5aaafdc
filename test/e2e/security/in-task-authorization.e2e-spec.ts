import { randomUUID } from 'node:crypto';
import {
  A2aSkillHandler,
  A2aTaskAuthorizations,
  AgentSkill,
  artifact,
  complete,
  requireAuth,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { GrpcJsonClient, type Json } from '../../fixtures/grpc-json.client.js';
import { startGrpcProbeApp, type GrpcProbeApp } from '../../fixtures/grpc-probe.fixture.js';

/**
 * In-task authorization (spec §7.6): a skill asks for a credential with AUTH_REQUIRED, the app hands it over
 * out of band, and the caller's stream stays open throughout, on every streaming binding.
 */
@AgentSkill({ id: 'consent', name: 'Consent', description: 'Needs the user to sign in first', tags: ['test'] })
class ConsentSkill extends A2aSkillHandler {
  async *handle(context: SkillContext): AsyncIterable<SkillEvent> {
    yield requireAuth('Sign in at https://idp.example/authorize to let me read your calendar');
    const token = await context.waitForAuthorization<string>({ timeoutMs: 10_000 });
    yield artifact(`read with ${token}`);
    yield complete();
  }
}

let probe: GrpcProbeApp;
let authorizations: A2aTaskAuthorizations;

beforeAll(async () => {
  probe = await startGrpcProbeApp({ providers: [ConsentSkill] });
  authorizations = probe.app.get(A2aTaskAuthorizations);
});
afterAll(() => probe?.app.close());

const request = (): Json => ({
  message: {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text: 'my calendar' }],
    metadata: { 'nestjs-a2a/skillId': 'consent' },
  },
});

/** The states of an SSE body's events, in order. */
function statesOf(sse: string): string[] {
  return [...sse.matchAll(/"state":"(TASK_STATE_[A-Z_]+)"/g)].map((match) => match[1]);
}

/** Waits until a skill run of some task waits for its credential, and returns that task's id. */
async function waitingTask(taskIdOf: () => string | undefined): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const taskId = taskIdOf();
    if (taskId && authorizations.isWaiting(taskId)) return taskId;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no skill run started waiting for a credential');
}

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('%s streams', (binding) => {
  it('stay open through AUTH_REQUIRED until the out-of-band credential lets the skill complete', async () => {
    const url = binding === 'JSONRPC' ? `${probe.httpUrl}/a2a/jsonrpc` : `${probe.httpUrl}/a2a/rest/message:stream`;
    const body =
      binding === 'JSONRPC' ? { jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: request() } : request();
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify(body),
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let sse = '';
    const reading = (async () => {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) sse += chunk.value;
    })();
    const taskId = await waitingTask(() => /"taskId":"([^"]+)"/.exec(sse)?.[1] ?? /"id":"([^"]+)"/.exec(sse)?.[1]);
    expect(statesOf(sse).at(-1)).toBe('TASK_STATE_AUTH_REQUIRED');
    expect(authorizations.provide(taskId, 'token-1')).toBe(true);
    await reading;
    expect(statesOf(sse).slice(-1)).toEqual(['TASK_STATE_COMPLETED']);
    expect(sse).toContain('read with token-1');
  });
});

describe('GRPC streams', () => {
  it('stay open through AUTH_REQUIRED until the out-of-band credential lets the skill complete', async () => {
    const client = new GrpcJsonClient(probe.grpcAddress);
    try {
      const events: Json[] = [];
      const stream = client.stream('SendStreamingMessage', request());
      const ended = new Promise<void>((resolve, reject) => {
        stream.on('data', (event: Json) => events.push(event));
        stream.on('end', resolve);
        stream.on('error', reject);
      });
      const taskId = await waitingTask(() => (events[0]?.task as { id?: string } | undefined)?.id);
      expect(authorizations.provide(taskId, 'token-2')).toBe(true);
      await ended;
      expect(JSON.stringify(events)).toContain('read with token-2');
      expect(statesOf(JSON.stringify(events)).at(-1)).toBe('TASK_STATE_COMPLETED');
    } finally {
      client.close();
    }
  });
});

describe('the credential', () => {
  it('is refused when no skill run waits for it, and reaches only the run of its task', async () => {
    expect(authorizations.provide(randomUUID(), 'token')).toBe(false);
  });

  it('wait ends when the task is canceled: the task is CANCELED, nothing waits any more', async () => {
    const client = new GrpcJsonClient(probe.grpcAddress);
    try {
      const sent = await client.unary('SendMessage', { ...request(), configuration: { returnImmediately: true } });
      const taskId = (sent.task as { id: string }).id;
      await waitingTask(() => taskId);
      const canceled = await client.unary('CancelTask', { id: taskId });
      expect((canceled.status as { state: string }).state).toBe('TASK_STATE_CANCELED');
      expect(authorizations.isWaiting(taskId)).toBe(false);
      expect(authorizations.provide(taskId, 'late')).toBe(false);
    } finally {
      client.close();
    }
  });
});
