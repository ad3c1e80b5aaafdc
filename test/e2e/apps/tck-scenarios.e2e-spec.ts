import { randomUUID } from 'node:crypto';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { GrpcJsonClient, type Json } from '../../fixtures/grpc-json.client.js';
import { BINDINGS, call, type Binding, type SecurityTarget } from '../../fixtures/security-calls.js';

/**
 * The scenarios of the A2A TCK 1.0 feature files (`scenarios/core_operations.feature`, `scenarios/streaming.feature`
 * of a2aproject/a2a-tck), each sent under its messageId prefix to the conformance agent on JSON-RPC, HTTP+JSON and
 * gRPC, and checked for what the scenario says: the task's state and status message, its artifacts' parts, a Message
 * instead of a Task, and for streams the order of the events.
 */

const HOLD_MS = 300;

/** A part as the kit checks it: its kind, content, filename and media type. */
type PartShape = Json;

interface SendScenario {
  prefix: string;
  /** A Task in this state, with these artifacts (one part each) and this status message text; or a Message. */
  expected: { state: string; statusText?: string; artifacts?: PartShape[] } | { message: string };
}

interface StreamScenario {
  prefix: string;
  /** Each event of the stream, as `status:<STATE>`, `task:<STATE>` or `artifact:<json of parts>[+append][+last]`. */
  events: string[];
}

const TEXT = (text: string): PartShape => ({ text });
const FILE: PartShape = { raw: Buffer.from('tck').toString('base64'), filename: 'output.txt', mediaType: 'text/plain' };

// core_operations.feature
const SEND_SCENARIOS: SendScenario[] = [
  { prefix: 'tck-complete-task', expected: { state: 'TASK_STATE_COMPLETED', statusText: 'Hello from TCK' } },
  {
    prefix: 'tck-artifact-text',
    expected: { state: 'TASK_STATE_COMPLETED', artifacts: [TEXT('Generated text content')] },
  },
  { prefix: 'tck-artifact-file', expected: { state: 'TASK_STATE_COMPLETED', artifacts: [FILE] } },
  {
    prefix: 'tck-artifact-file-url',
    expected: {
      state: 'TASK_STATE_COMPLETED',
      artifacts: [{ url: 'https://example.com/output.txt', filename: 'output.txt', mediaType: 'text/plain' }],
    },
  },
  {
    prefix: 'tck-artifact-data',
    expected: {
      state: 'TASK_STATE_COMPLETED',
      artifacts: [{ data: { key: 'value', count: 42 }, mediaType: 'application/json' }],
    },
  },
  { prefix: 'tck-message-response', expected: { message: 'Direct message response' } },
  { prefix: 'tck-input-required', expected: { state: 'TASK_STATE_INPUT_REQUIRED' } },
  { prefix: 'tck-reject-task', expected: { state: 'TASK_STATE_REJECTED', statusText: 'rejected' } },
];

const art = (parts: PartShape[], flags = '') => `artifact:${JSON.stringify(parts)}${flags}`;
const lifecycle = (text: string) => ['task:TASK_STATE_WORKING', art([TEXT(text)]), 'status:TASK_STATE_COMPLETED'];

// streaming.feature
const STREAM_SCENARIOS: StreamScenario[] = [
  { prefix: 'tck-stream-001', events: lifecycle('Stream hello from TCK') },
  { prefix: 'tck-stream-002', events: ['task:TASK_STATE_COMPLETED'] },
  { prefix: 'tck-stream-003', events: lifecycle('Stream task lifecycle') },
  { prefix: 'tck-stream-ordering-001', events: lifecycle('Ordered output') },
  { prefix: 'tck-stream-artifact-text', events: lifecycle('Streamed text content') },
  {
    prefix: 'tck-stream-artifact-file',
    events: ['task:TASK_STATE_WORKING', art([FILE]), 'status:TASK_STATE_COMPLETED'],
  },
  {
    prefix: 'tck-stream-artifact-chunked',
    events: [
      'task:TASK_STATE_WORKING',
      art([TEXT('chunk-1 ')]),
      art([TEXT('chunk-2')], '+append+last'),
      'status:TASK_STATE_COMPLETED',
    ],
  },
  {
    prefix: 'test-resubscribe-message-id',
    events: ['task:TASK_STATE_WORKING', 'status:TASK_STATE_COMPLETED'],
  },
];

let agent: RunningAgent;
let target: SecurityTarget;
beforeAll(async () => {
  agent = await startConformanceAgent({ withGrpc: true, subscribeHoldMs: HOLD_MS });
  target = { httpUrl: agent.url, grpc: new GrpcJsonClient(agent.grpcAddress!), paths: { jsonRpc: '/', rest: '' } };
});
afterAll(async () => {
  target?.grpc.close();
  await agent?.close();
});

/** A message as the kit sends it: its text says nothing of the scenario, the messageId prefix does. */
const kitMessage = (prefix: string, extra: Json = {}): Json => ({
  messageId: `${prefix}-${randomUUID().slice(0, 8)}`,
  role: 'ROLE_USER',
  parts: [{ text: 'TCK artifact test' }],
  ...extra,
});

async function send(binding: Binding, message: Json): Promise<Json> {
  const outcome = await call(target, binding, 'SendMessage', { message });
  expect(outcome.status).toBe('OK');
  return outcome.result!;
}

/** The stream's events as StreamResponse objects, whichever binding carried them. */
async function stream(binding: Binding, message: Json): Promise<Json[]> {
  const outcome = await call(target, binding, 'SendStreamingMessage', { message });
  expect(outcome.status).toBe('OK');
  const result = outcome.result as { events?: Json[]; sse?: string };
  if (result.events) return result.events;
  const data = result
    .sse!.split(/\r?\n\r?\n/)
    .flatMap((event) => event.split(/\r?\n/).filter((line) => line.startsWith('data:')))
    .map((line) => JSON.parse(line.slice(5)) as Json);
  return binding === 'JSONRPC' ? data.map((envelope) => envelope.result as Json) : data;
}

/** The parts as the kit reads them: gRPC leaves out what HTTP+JSON spells empty, so empty fields are dropped. */
function partsOf(parts: Json[]): PartShape[] {
  return parts.map((part) =>
    Object.fromEntries(Object.entries(part).filter(([key, value]) => key !== 'metadata' && value !== '')),
  );
}

function describeEvent(event: Json): string {
  const { task, statusUpdate, artifactUpdate, message } = event as Record<string, Json | undefined>;
  if (task) return `task:${(task.status as Json).state}`;
  if (statusUpdate) return `status:${(statusUpdate.status as Json).state}`;
  if (message) return `message:${JSON.stringify(message.parts)}`;
  const update = artifactUpdate as { artifact: { parts: Json[] }; append?: boolean; lastChunk?: boolean };
  return art(partsOf(update.artifact.parts), `${update.append ? '+append' : ''}${update.lastChunk ? '+last' : ''}`);
}

describe.each(BINDINGS)('%s', (binding) => {
  describe('core_operations.feature', () => {
    it.each(SEND_SCENARIOS.map((scenario) => [scenario.prefix, scenario] as const))(
      '%s',
      async (prefix, { expected }) => {
        const result = await send(binding, kitMessage(prefix));
        if ('message' in expected) {
          expect(result.task).toBeUndefined();
          const message = result.message as { role: string; parts: Json[] };
          expect(message.role).toBe('ROLE_AGENT');
          expect(partsOf(message.parts)).toEqual([TEXT(expected.message)]);
          return;
        }
        const task = result.task as {
          id: string;
          status: { state: string; message?: { parts: Json[] } };
          artifacts?: Array<{ artifactId: string; parts: Json[] }>;
        };
        expect(task.status.state).toBe(expected.state);
        if (expected.statusText) expect(partsOf(task.status.message!.parts)).toEqual([TEXT(expected.statusText)]);
        expect((task.artifacts ?? []).map((artifact) => partsOf(artifact.parts))).toEqual(
          (expected.artifacts ?? []).map((part) => [part]),
        );
        for (const artifact of task.artifacts ?? []) expect(artifact.artifactId).toEqual(expect.any(String));
      },
    );

    it('moves a tck-input-required task on with the kit follow-ups: input-required again, then complete-task', async () => {
      const asked = (await send(binding, kitMessage('tck-input-required'))).task as { id: string; contextId: string };
      const ids = { taskId: asked.id, contextId: asked.contextId };
      const again = (await send(binding, kitMessage('tck-input-required', ids))).task as Json;
      expect((again.status as Json).state).toBe('TASK_STATE_INPUT_REQUIRED');
      const done = (await send(binding, kitMessage('tck-complete-task', ids))).task as {
        status: { state: string };
        history: Json[];
      };
      expect(done.status.state).toBe('TASK_STATE_COMPLETED');
      expect(done.history.filter((entry) => entry.role === 'ROLE_USER')).toHaveLength(3);
    });
  });

  describe('streaming.feature', () => {
    it.each(STREAM_SCENARIOS.map((scenario) => [scenario.prefix, scenario] as const))(
      '%s',
      async (prefix, { events }) => {
        const received = await stream(binding, kitMessage(prefix));
        expect(received.map(describeEvent)).toEqual(events);
      },
    );

    it('gives the chunks of tck-stream-artifact-chunked one artifactId', async () => {
      const received = await stream(binding, kitMessage('tck-stream-artifact-chunked'));
      const ids = received.flatMap((event) =>
        event.artifactUpdate ? [((event.artifactUpdate as Json).artifact as Json).artifactId] : [],
      );
      expect(ids).toHaveLength(2);
      expect(ids[1]).toBe(ids[0]);
    });
  });

  it('keeps the text commands for messageIds of no scenario', async () => {
    const result = await send(binding, { ...kitMessage('tck-unknown-prefix'), parts: [{ text: 'echo plain' }] });
    const task = result.task as { status: { state: string }; artifacts: Array<{ parts: Json[] }> };
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(partsOf(task.artifacts[0].parts)).toEqual([TEXT('plain')]);
  });
});
