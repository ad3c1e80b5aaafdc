import { isLegacyAgentCard, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { legacyPushNotificationToV1StreamResponse } from '@a2a-js/sdk/compat/v0_3';
import { TaskState as SdkTaskState } from '@a2a-js/sdk';
import type { IncomingMessage } from 'node:http';
import type { HttpRequest } from '../../../libs/a2a/src/bindings/http/http-request.js';
import { cardPayload } from '../../../libs/a2a/src/card/signing/card-payload.projection.js';
import { v03AgentCard, V03CardView, wantsV03Card } from '../../../libs/a2a/src/compat/v03/v03.card.js';
import {
  v03ExtensionsHeaders,
  v03JsonRpcCall,
  v03Result,
  v03StreamEventOf,
  v1RequestOf,
  type V03JsonRpcCall,
} from '../../../libs/a2a/src/compat/v03/v03.jsonrpc.js';
import {
  v03Message,
  v03Part,
  v03Role,
  v03StreamEvent,
  v03Task,
  v03TaskPushConfig,
  v03TaskState,
  v1MessageOf,
  v1PartOf,
  v1PushConfigOf,
  v1Role,
  v1TaskState,
} from '../../../libs/a2a/src/compat/v03/v03.translate.js';
import { A2aError } from '../../../libs/a2a/src/errors/a2a.error.js';
import { ALL_TASK_STATES } from '../../../libs/a2a/src/task/task-states.js';
import type { AgentCard, Part, StreamResponse, Task, TaskState } from '../../../libs/a2a/src/protocol/a2a.types.js';
import {
  validateCancelTaskRequest,
  validateDeleteTaskPushNotificationConfigRequest,
  validateGetExtendedAgentCardRequest,
  validateGetTaskPushNotificationConfigRequest,
  validateGetTaskRequest,
  validateListTaskPushNotificationConfigsRequest,
  validateSendMessageRequest,
  validateSubscribeToTaskRequest,
  validateTaskPushNotificationConfig,
} from '../../../libs/a2a/src/protocol/request.validator.js';

/** The A2aError a call throws, or a failure naming what it did instead. */
function thrown(call: () => unknown): A2aError {
  try {
    call();
  } catch (error) {
    if (error instanceof A2aError) return error;
    throw error;
  }
  throw new Error('expected an A2aError');
}

function request(headers: Record<string, string> = {}, query?: Record<string, unknown>, url = '/'): HttpRequest {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { headers: lower, query, url } as unknown as HttpRequest;
}

const V03_STATES = [
  'unknown',
  'submitted',
  'working',
  'completed',
  'failed',
  'canceled',
  'input-required',
  'rejected',
  'auth-required',
];

describe('v0.3 ↔ v1.0 translation (compat.v03)', () => {
  describe('task states and roles', () => {
    it('maps every v1.0 state to v0.3 and back', () => {
      const all: TaskState[] = ['TASK_STATE_UNSPECIFIED', ...ALL_TASK_STATES];
      expect(all.map(v03TaskState)).toEqual(V03_STATES);
      expect(V03_STATES.map(v1TaskState)).toEqual(all);
      expect(v1TaskState('WORKING')).toBeUndefined();
    });

    it('maps the roles both ways', () => {
      expect([v03Role('ROLE_USER'), v03Role('ROLE_AGENT')]).toEqual(['user', 'agent']);
      expect([v1Role('user'), v1Role('agent'), v1Role('ROLE_USER'), v1Role(undefined)]).toEqual([
        'ROLE_USER',
        'ROLE_AGENT',
        undefined,
        undefined,
      ]);
    });
  });

  describe('parts, v0.3 → v1.0', () => {
    it('text, with its metadata', () => {
      expect(v1PartOf({ kind: 'text', text: 'hi', metadata: { a: 1 } })).toEqual({ text: 'hi', metadata: { a: 1 } });
      expect(v1PartOf({ kind: 'text', text: '' })).toEqual({ text: '' });
    });

    it('a file by bytes or by uri, with name and mimeType as filename and mediaType', () => {
      expect(v1PartOf({ kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'a.txt' } })).toEqual({
        raw: 'aGk=',
        mediaType: 'text/plain',
        filename: 'a.txt',
      });
      expect(
        v1PartOf({
          kind: 'file',
          file: { uri: 'https://x.test/a.pdf', mimeType: 'application/pdf' },
          metadata: { m: true },
        }),
      ).toEqual({
        url: 'https://x.test/a.pdf',
        mediaType: 'application/pdf',
        metadata: { m: true },
      });
    });

    it('data, and a wrapped non-object value unwrapped (data_part_compat)', () => {
      expect(v1PartOf({ kind: 'data', data: { n: 1 } })).toEqual({ data: { n: 1 } });
      expect(v1PartOf({ kind: 'data', data: { value: [1, 2] }, metadata: { data_part_compat: true } })).toEqual({
        data: [1, 2],
      });
      expect(v1PartOf({ kind: 'data', data: { value: 'x' }, metadata: { data_part_compat: true, k: 'v' } })).toEqual({
        data: 'x',
        metadata: { k: 'v' },
      });
    });

    it('passes a part without kind on as it is, for the v1.0 validator', () => {
      const part = { text: 'plain' };
      expect(v1PartOf(part)).toBe(part);
      expect(v1PartOf('nonsense')).toBe('nonsense');
    });

    it('refuses an unknown kind and a file with neither or both of bytes and uri, naming v0.3 fields', () => {
      expect(thrown(() => v1PartOf({ kind: 'video' }, 'message.parts[2]')).details()).toContainEqual(
        expect.objectContaining({
          fieldViolations: [{ field: 'message.parts[2].kind', description: 'Must be "text", "file" or "data"' }],
        }),
      );
      expect(thrown(() => v1PartOf({ kind: 'file', file: {} })).kind).toBe('InvalidParams');
      expect(thrown(() => v1PartOf({ kind: 'file', file: { bytes: 'aGk=', uri: 'https://x.test' } })).kind).toBe(
        'InvalidParams',
      );
      expect(thrown(() => v1PartOf({ kind: 'file', file: 'https://x.test' })).kind).toBe('InvalidParams');
    });
  });

  describe('parts, v1.0 → v0.3', () => {
    it('every part kind', () => {
      expect(v03Part({ text: 'hi', metadata: { a: 1 } })).toEqual({ kind: 'text', text: 'hi', metadata: { a: 1 } });
      expect(v03Part({ raw: 'aGk=', mediaType: 'text/plain', filename: 'a.txt' })).toEqual({
        kind: 'file',
        file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'a.txt' },
      });
      expect(v03Part({ url: 'https://x.test/a.pdf' })).toEqual({ kind: 'file', file: { uri: 'https://x.test/a.pdf' } });
      expect(v03Part({ data: { ok: true } })).toEqual({ kind: 'data', data: { ok: true } });
    });

    it('wraps a data value that is not an object, and the round trip gives it back', () => {
      for (const value of [[1, 2], 'x', 3, false, null]) {
        const part: Part = { data: value, metadata: { k: 'v' } };
        const v03 = v03Part(part);
        expect(v03).toEqual({ kind: 'data', data: { value }, metadata: { k: 'v', data_part_compat: true } });
        expect(v1PartOf(v03)).toEqual(part);
      }
    });

    it('does not change the part it reads', () => {
      const part: Part = { data: 'x', metadata: { k: 'v' } };
      v03Part(part);
      expect(part).toEqual({ data: 'x', metadata: { k: 'v' } });
    });
  });

  describe('messages', () => {
    const v03 = {
      kind: 'message',
      messageId: 'm1',
      role: 'user',
      contextId: 'c1',
      taskId: 't1',
      parts: [{ kind: 'text', text: 'hi' }],
      metadata: { a: 1 },
      extensions: ['urn:x'],
      referenceTaskIds: ['t0'],
    };
    const v1 = {
      messageId: 'm1',
      role: 'ROLE_USER',
      contextId: 'c1',
      taskId: 't1',
      parts: [{ text: 'hi' }],
      metadata: { a: 1 },
      extensions: ['urn:x'],
      referenceTaskIds: ['t0'],
    };

    it('v0.3 → v1.0, accepted by the v1.0 validator', () => {
      expect(v1MessageOf(v03)).toEqual(v1);
      expect(validateSendMessageRequest({ message: v1MessageOf(v03) }).message).toEqual(v1);
    });

    it('v1.0 → v0.3, and back', () => {
      expect(v03Message(v1 as never)).toEqual(v03);
      expect(v03Message({ messageId: 'm2', role: 'ROLE_AGENT', parts: [], extensions: [], contextId: '' })).toEqual({
        kind: 'message',
        messageId: 'm2',
        role: 'agent',
        parts: [],
      });
    });

    it('refuses another kind or role; leaves missing fields to the validator', () => {
      expect(thrown(() => v1MessageOf({ ...v03, kind: 'task' })).kind).toBe('InvalidParams');
      expect(thrown(() => v1MessageOf({ ...v03, role: 'robot' })).details()).toContainEqual(
        expect.objectContaining({
          fieldViolations: [{ field: 'message.role', description: 'Must be "user" (or "agent")' }],
        }),
      );
      expect(v1MessageOf({ kind: 'message' })).toEqual({});
      expect(
        thrown(() =>
          validateSendMessageRequest({
            message: v1MessageOf({ kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'x' }] }),
          }),
        ).kind,
      ).toBe('InvalidParams');
    });
  });

  describe('tasks and stream events, v1.0 → v0.3', () => {
    const task: Task = {
      id: 't1',
      contextId: 'c1',
      status: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        timestamp: '2026-01-01T00:00:00.000Z',
        message: { messageId: 's1', role: 'ROLE_AGENT', parts: [{ text: 'Which?' }] },
      },
      artifacts: [{ artifactId: 'a1', name: 'out', parts: [{ text: 'x' }, { data: { n: 1 } }] }],
      history: [{ messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'ask' }] }],
      metadata: { k: 'v' },
    };

    it('a task, with its status message, artifacts and history', () => {
      expect(v03Task(task)).toEqual({
        kind: 'task',
        id: 't1',
        contextId: 'c1',
        status: {
          state: 'input-required',
          timestamp: '2026-01-01T00:00:00.000Z',
          message: { kind: 'message', messageId: 's1', role: 'agent', parts: [{ kind: 'text', text: 'Which?' }] },
        },
        artifacts: [
          {
            artifactId: 'a1',
            name: 'out',
            parts: [
              { kind: 'text', text: 'x' },
              { kind: 'data', data: { n: 1 } },
            ],
          },
        ],
        history: [{ kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'ask' }] }],
        metadata: { k: 'v' },
      });
    });

    it('status updates with `final` from the state, artifact updates with append and lastChunk', () => {
      const status = (state: TaskState): StreamResponse => ({
        statusUpdate: { taskId: 't1', contextId: 'c1', status: { state } },
      });
      const terminalOnly = (state: TaskState) => state === 'TASK_STATE_COMPLETED';
      expect(v03StreamEvent(status('TASK_STATE_WORKING'), terminalOnly)).toEqual({
        kind: 'status-update',
        taskId: 't1',
        contextId: 'c1',
        status: { state: 'working' },
        final: false,
      });
      expect(v03StreamEvent(status('TASK_STATE_COMPLETED'), terminalOnly)).toMatchObject({ final: true });
      expect(
        v03StreamEvent(
          {
            artifactUpdate: {
              taskId: 't1',
              contextId: 'c1',
              artifact: { artifactId: 'a', parts: [{ text: 'c' }] },
              append: true,
              lastChunk: false,
            },
          },
          terminalOnly,
        ),
      ).toEqual({
        kind: 'artifact-update',
        taskId: 't1',
        contextId: 'c1',
        artifact: { artifactId: 'a', parts: [{ kind: 'text', text: 'c' }] },
        append: true,
        lastChunk: false,
      });
      expect(v03StreamEvent({ task }, terminalOnly)).toEqual(v03Task(task));
      expect(v03StreamEvent({ message: task.history![0] }, terminalOnly)).toMatchObject({
        kind: 'message',
        role: 'user',
      });
    });

    it('ends message/stream at a terminal or interrupted state, tasks/resubscribe at a terminal one', () => {
      const call = (method: string) => v03JsonRpcCall(method, request())!;
      const finalOf = (method: string, state: TaskState) =>
        (
          v03StreamEventOf(call(method), { statusUpdate: { taskId: 't', contextId: 'c', status: { state } } }) as {
            final: boolean;
          }
        ).final;
      const finals = (method: string) => ALL_TASK_STATES.filter((state) => finalOf(method, state));
      expect(finals('message/stream')).toEqual([
        'TASK_STATE_COMPLETED',
        'TASK_STATE_FAILED',
        'TASK_STATE_CANCELED',
        'TASK_STATE_INPUT_REQUIRED',
        'TASK_STATE_REJECTED',
        'TASK_STATE_AUTH_REQUIRED',
      ]);
      expect(finals('tasks/resubscribe')).toEqual([
        'TASK_STATE_COMPLETED',
        'TASK_STATE_FAILED',
        'TASK_STATE_CANCELED',
        'TASK_STATE_REJECTED',
      ]);
    });

    it('are read back by @a2a-js/sdk v0.3 parser, every event kind', () => {
      const events: StreamResponse[] = [
        { task },
        { message: task.history![0] },
        { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } } },
        {
          artifactUpdate: {
            taskId: 't1',
            contextId: 'c1',
            artifact: { artifactId: 'a', parts: [{ raw: 'aGk=', mediaType: 'text/plain' }, { data: [1] }] },
            lastChunk: true,
          },
        },
      ];
      const parsed = events.map((event) => legacyPushNotificationToV1StreamResponse(v03StreamEvent(event, () => true)));
      expect(parsed.map((p) => p.payload?.$case)).toEqual(['task', 'message', 'statusUpdate', 'artifactUpdate']);
      const sdkTask = parsed[0].payload as {
        value: { status: { state: number }; artifacts: Array<{ parts: unknown[] }> };
      };
      expect(sdkTask.value.status.state).toBe(SdkTaskState.TASK_STATE_INPUT_REQUIRED);
      const artifact = (
        parsed[3].payload as {
          value: { artifact: { parts: Array<{ content: { $case: string; value: unknown }; mediaType: string }> } };
        }
      ).value.artifact;
      expect(artifact.parts.map((p) => p.content.$case)).toEqual(['raw', 'data']);
      expect(Buffer.from(artifact.parts[0].content.value as Uint8Array).toString()).toBe('hi');
      // The SDK unwraps the wrapped value as this layer does.
      expect(artifact.parts[1].content.value).toEqual([1]);
    });
  });

  describe('push configs', () => {
    it('v0.3 → v1.0: flattened, the first scheme kept, no authentication without schemes', () => {
      expect(
        v1PushConfigOf(
          {
            id: 'p',
            url: 'https://h.test/w',
            token: 'tk',
            authentication: { schemes: ['Bearer', 'Basic'], credentials: 'c' },
          },
          'pushNotificationConfig',
          { taskId: 't' },
        ),
      ).toEqual({
        taskId: 't',
        url: 'https://h.test/w',
        token: 'tk',
        authentication: { scheme: 'Bearer', credentials: 'c' },
      });
      expect(v1PushConfigOf({ url: 'https://h.test/w', authentication: { schemes: [] } }, 'x', { id: 'p' })).toEqual({
        id: 'p',
        url: 'https://h.test/w',
      });
      expect(thrown(() => v1PushConfigOf(undefined, 'pushNotificationConfig', {})).kind).toBe('InvalidParams');
      expect(
        thrown(() => v1PushConfigOf({ url: 'https://h.test', authentication: { schemes: 'Bearer' } }, 'p', {})).kind,
      ).toBe('InvalidParams');
    });

    it('v1.0 → v0.3: nested under pushNotificationConfig, one scheme in schemes', () => {
      expect(
        v03TaskPushConfig({
          taskId: 't',
          id: 'p',
          url: 'https://h.test/w',
          token: 'tk',
          authentication: { scheme: 'Bearer', credentials: 'c' },
        }),
      ).toEqual({
        taskId: 't',
        pushNotificationConfig: {
          id: 'p',
          url: 'https://h.test/w',
          token: 'tk',
          authentication: { schemes: ['Bearer'], credentials: 'c' },
        },
      });
      expect(v03TaskPushConfig({ taskId: 't', id: 'p', url: 'https://h.test/w' })).toEqual({
        taskId: 't',
        pushNotificationConfig: { id: 'p', url: 'https://h.test/w' },
      });
    });
  });

  describe('JSON-RPC calls', () => {
    it('serves a v0.3 method as v0.3 when A2A-Version is absent, empty or 0.3 (patch ignored), header or query', () => {
      for (const req of [
        request(),
        request({ 'A2A-Version': '' }),
        request({ 'A2A-Version': '0.3' }),
        request({ 'A2A-Version': ' 0.3.2 ' }),
        request({}, { 'A2A-Version': '0.3' }),
      ]) {
        expect(v03JsonRpcCall('message/send', req)).toMatchObject({
          method: 'message/send',
          operation: 'SendMessage',
          protocol: { version: '0.3', extensions: [] },
        });
      }
    });

    it('leaves everything else to v1.0: v1.0 methods without a version, and any method with another version', () => {
      expect(v03JsonRpcCall('SendMessage', request())).toBeUndefined();
      expect(v03JsonRpcCall('message/send', request({ 'A2A-Version': '1.0' }))).toBeUndefined();
      expect(v03JsonRpcCall('message/send', request({ 'A2A-Version': '2.0' }))).toBeUndefined();
      expect(v03JsonRpcCall('SendMessage', request({ 'A2A-Version': '1.0' }))).toBeUndefined();
      expect(v03JsonRpcCall('constructor', request())).toBeUndefined();
    });

    it('answers A2A-Version 0.3 with a name v0.3 does not have with MethodNotFound', () => {
      const error = thrown(() => v03JsonRpcCall('SendMessage', request({ 'A2A-Version': '0.3' })));
      expect(error.kind).toBe('MethodNotFound');
      expect(error.message).toContain('message/send');
    });

    it('maps all ten v0.3 methods', () => {
      const methods = {
        'message/send': 'SendMessage',
        'message/stream': 'SendStreamingMessage',
        'tasks/get': 'GetTask',
        'tasks/cancel': 'CancelTask',
        'tasks/resubscribe': 'SubscribeToTask',
        'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
        'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
        'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigs',
        'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
        'agent/getAuthenticatedExtendedCard': 'GetExtendedAgentCard',
      };
      for (const [method, operation] of Object.entries(methods))
        expect(v03JsonRpcCall(method, request())?.operation).toBe(operation);
    });

    it('reads X-A2A-Extensions (and A2A-Extensions), and echoes under both names', () => {
      expect(
        v03JsonRpcCall('tasks/get', request({ 'X-A2A-Extensions': 'urn:a, urn:b', 'A2A-Extensions': 'urn:c' }))
          ?.protocol.extensions,
      ).toEqual(['urn:a', 'urn:b', 'urn:c']);
      expect(v03ExtensionsHeaders(['urn:a', 'urn:b'])).toEqual({
        'X-A2A-Extensions': 'urn:a,urn:b',
        'A2A-Extensions': 'urn:a,urn:b',
      });
      expect(v03ExtensionsHeaders([])).toBeUndefined();
    });
  });

  describe('JSON-RPC params → the v1.0 request, accepted by its validator', () => {
    const call = (method: string): V03JsonRpcCall => v03JsonRpcCall(method, request())!;
    const message = { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] };

    it('message/send and message/stream: blocking false is returnImmediately, the inline push config flattened', () => {
      for (const method of ['message/send', 'message/stream']) {
        const v1 = v1RequestOf(call(method), {
          message: { ...message, taskId: 't1' },
          configuration: {
            blocking: false,
            acceptedOutputModes: ['text/plain'],
            historyLength: 2,
            pushNotificationConfig: { url: 'https://h.test/w', token: 'tk' },
          },
          metadata: { k: 'v' },
        });
        expect(validateSendMessageRequest(v1)).toEqual({
          message: { messageId: 'm1', role: 'ROLE_USER', taskId: 't1', parts: [{ text: 'hi' }] },
          configuration: {
            acceptedOutputModes: ['text/plain'],
            historyLength: 2,
            returnImmediately: true,
            taskPushNotificationConfig: { id: 't1', url: 'https://h.test/w', token: 'tk' },
          },
          metadata: { k: 'v' },
        });
      }
      expect(v1RequestOf(call('message/send'), { message, configuration: { blocking: true } })).toEqual({
        message: v1MessageOf(message),
        configuration: {},
      });
      expect(
        thrown(() => v1RequestOf(call('message/send'), { message, configuration: { blocking: 'yes' } })).kind,
      ).toBe('InvalidParams');
    });

    it('tasks/get, tasks/cancel, tasks/resubscribe keep only what v1.0 reads', () => {
      expect(
        validateGetTaskRequest(v1RequestOf(call('tasks/get'), { id: 't1', historyLength: 3, metadata: { x: 1 } })),
      ).toEqual({ id: 't1', historyLength: 3 });
      expect(validateCancelTaskRequest(v1RequestOf(call('tasks/cancel'), { id: 't1', metadata: { x: 1 } }))).toEqual({
        id: 't1',
        metadata: { x: 1 },
      });
      expect(
        validateSubscribeToTaskRequest(v1RequestOf(call('tasks/resubscribe'), { id: 't1', tenant: 'other' })),
      ).toEqual({ id: 't1' });
    });

    it('the push-config methods: task id from `id`, config id from `pushNotificationConfigId`, else the task id', () => {
      const set = v1RequestOf(call('tasks/pushNotificationConfig/set'), {
        taskId: 't1',
        pushNotificationConfig: { url: 'https://h.test/w', authentication: { schemes: ['Bearer'] } },
      });
      expect(validateTaskPushNotificationConfig(set)).toEqual({
        taskId: 't1',
        id: 't1',
        url: 'https://h.test/w',
        authentication: { scheme: 'Bearer' },
      });
      expect(
        v1RequestOf(call('tasks/pushNotificationConfig/set'), {
          taskId: 't1',
          pushNotificationConfig: { id: 'p1', url: 'https://h.test/w' },
        }),
      ).toMatchObject({ id: 'p1' });
      expect(
        validateGetTaskPushNotificationConfigRequest(
          v1RequestOf(call('tasks/pushNotificationConfig/get'), { id: 't1', pushNotificationConfigId: 'p1' }),
        ),
      ).toEqual({ taskId: 't1', id: 'p1' });
      expect(
        validateGetTaskPushNotificationConfigRequest(
          v1RequestOf(call('tasks/pushNotificationConfig/get'), { id: 't1' }),
        ),
      ).toEqual({ taskId: 't1', id: 't1' });
      expect(
        validateListTaskPushNotificationConfigsRequest(
          v1RequestOf(call('tasks/pushNotificationConfig/list'), { id: 't1' }),
        ),
      ).toEqual({ taskId: 't1', pageSize: 100 });
      expect(
        validateDeleteTaskPushNotificationConfigRequest(
          v1RequestOf(call('tasks/pushNotificationConfig/delete'), { id: 't1', pushNotificationConfigId: 'p1' }),
        ),
      ).toEqual({ taskId: 't1', id: 'p1' });
      expect(
        thrown(() =>
          validateDeleteTaskPushNotificationConfigRequest(
            v1RequestOf(call('tasks/pushNotificationConfig/delete'), { id: 't1' }),
          ),
        ).kind,
      ).toBe('InvalidParams');
      expect(validateGetExtendedAgentCardRequest(v1RequestOf(call('agent/getAuthenticatedExtendedCard'), {}))).toEqual(
        {},
      );
    });
  });

  describe('JSON-RPC results → v0.3', () => {
    const call = (method: string): V03JsonRpcCall => v03JsonRpcCall(method, request())!;
    const task: Task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } };
    const config = { taskId: 't1', id: 'p1', url: 'https://h.test/w' };

    it('per operation', () => {
      expect(v03Result(call('message/send'), { task })).toEqual({
        kind: 'task',
        id: 't1',
        contextId: 'c1',
        status: { state: 'completed' },
      });
      expect(
        v03Result(call('message/send'), { message: { messageId: 'r', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } }),
      ).toEqual({
        kind: 'message',
        messageId: 'r',
        role: 'agent',
        parts: [{ kind: 'text', text: 'hi' }],
      });
      expect(v03Result(call('tasks/get'), task)).toMatchObject({ kind: 'task' });
      expect(v03Result(call('tasks/cancel'), task)).toMatchObject({ kind: 'task' });
      expect(v03Result(call('tasks/pushNotificationConfig/set'), config)).toEqual({
        taskId: 't1',
        pushNotificationConfig: { id: 'p1', url: 'https://h.test/w' },
      });
      expect(v03Result(call('tasks/pushNotificationConfig/get'), config)).toEqual({
        taskId: 't1',
        pushNotificationConfig: { id: 'p1', url: 'https://h.test/w' },
      });
      expect(
        v03Result(call('tasks/pushNotificationConfig/list'), { configs: [config, config], nextPageToken: '' }),
      ).toHaveLength(2);
      expect(v03Result(call('tasks/pushNotificationConfig/delete'), {})).toBeNull();
    });
  });

  describe('the card', () => {
    const card: AgentCard = {
      name: 'Agent',
      description: 'Does things',
      supportedInterfaces: [
        { url: 'https://a.test/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'https://a.test/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        { url: 'https://a.test/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ],
      version: '2.0.0',
      capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: true },
      securitySchemes: {
        key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key', description: 'the key' } },
        bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
        oauth: {
          oauth2SecurityScheme: {
            flows: {
              authorizationCode: {
                authorizationUrl: 'https://i.test/a',
                tokenUrl: 'https://i.test/t',
                scopes: { read: 'Read' },
                pkceRequired: true,
              },
              deviceCode: { deviceAuthorizationUrl: 'https://i.test/d', tokenUrl: 'https://i.test/t', scopes: {} },
            },
          },
        },
        oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://i.test/.well-known/openid-configuration' } },
        mtls: { mtlsSecurityScheme: {} },
      },
      securityRequirements: [{ schemes: { key: {} } }, { schemes: { oauth: { list: ['read'] } } }],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [
        { id: 's1', name: 'S1', description: 'One', tags: ['t'], securityRequirements: [{ schemes: { bearer: {} } }] },
        { id: 's2', name: 'S2', description: 'Two', tags: ['t'] },
      ],
      signatures: [{ protected: 'eyJhbGciOiJFZERTQSJ9', signature: 'c2ln' }],
    };

    it("adds v0.3's fields and keeps every v1.0 field", () => {
      const view = v03AgentCard(card) as unknown as Record<string, unknown>;
      expect(view).toMatchObject({
        protocolVersion: '0.3.0',
        url: 'https://a.test/a2a/jsonrpc',
        preferredTransport: 'JSONRPC',
        additionalInterfaces: [{ url: 'https://a.test/a2a/jsonrpc', transport: 'JSONRPC' }],
        supportsAuthenticatedExtendedCard: true,
        security: [{ key: [] }, { oauth: ['read'] }],
        supportedInterfaces: card.supportedInterfaces,
        signatures: card.signatures,
        capabilities: card.capabilities,
      });
      expect(view.securitySchemes).toEqual({
        key: { ...card.securitySchemes!.key, type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'the key' },
        bearer: { ...card.securitySchemes!.bearer, type: 'http', scheme: 'Bearer', bearerFormat: 'JWT' },
        oauth: {
          ...card.securitySchemes!.oauth,
          type: 'oauth2',
          flows: {
            authorizationCode: {
              authorizationUrl: 'https://i.test/a',
              tokenUrl: 'https://i.test/t',
              scopes: { read: 'Read' },
            },
          },
        },
        oidc: {
          ...card.securitySchemes!.oidc,
          type: 'openIdConnect',
          openIdConnectUrl: 'https://i.test/.well-known/openid-configuration',
        },
        mtls: { ...card.securitySchemes!.mtls, type: 'mutualTLS' },
      });
      expect((view.skills as Array<Record<string, unknown>>).map((skill) => skill.security)).toEqual([
        [{ bearer: [] }],
        undefined,
      ]);
      // Not changed in place.
      expect('type' in card.securitySchemes!.key).toBe(false);
    });

    it('covers the same signed payload as the v1.0 card (strict and sdk), so its signatures verify on the view', () => {
      const view = v03AgentCard(card);
      expect(cardPayload(view, 'strict')).toBe(cardPayload(card, 'strict'));
      expect(cardPayload(view, 'sdk')).toBe(cardPayload(card, 'sdk'));
    });

    it('is read by @a2a-js/sdk as a v1.0 card (supportedInterfaces wins), and its v0.3 part alone as a v0.3 card', () => {
      const view = v03AgentCard(card) as unknown as Record<string, unknown>;
      expect(isLegacyAgentCard(view)).toBe(false);
      const { supportedInterfaces: _v1, ...v03Only } = view;
      expect(isLegacyAgentCard(v03Only)).toBe(true);
      const parsed = parseLegacyAgentCard(v03Only);
      expect(parsed.supportedInterfaces).toEqual([
        { url: 'https://a.test/a2a/jsonrpc', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3.0' },
        { url: 'https://a.test/a2a/jsonrpc', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
      ]);
      expect(Object.keys(parsed.securitySchemes).sort()).toEqual(['bearer', 'key', 'mtls', 'oauth', 'oidc']);
      expect(parsed.securitySchemes.key.scheme).toEqual({
        $case: 'apiKeySecurityScheme',
        value: { description: 'the key', location: 'header', name: 'X-API-Key' },
      });
      expect(parsed.capabilities?.extendedAgentCard).toBe(true);
      expect(parsed.skills.map((skill) => skill.id)).toEqual(['s1', 's2']);
    });

    it('is the card itself when no interface speaks 0.3', () => {
      const v1Only = { ...card, supportedInterfaces: card.supportedInterfaces.slice(0, 2) };
      expect(v03AgentCard(v1Only)).toBe(v1Only);
      const view = new V03CardView();
      expect(view.of(v1Only, { json: 'v1', etag: '"e"' })).toEqual({ json: 'v1', etag: '"e"' });
    });

    it('is made once per card, with its own ETag', () => {
      const view = new V03CardView();
      const first = view.of(card, { json: 'v1', etag: '"e"' });
      expect(JSON.parse(first.json).url).toBe('https://a.test/a2a/jsonrpc');
      expect(first.etag).not.toBe('"e"');
      expect(view.of(card, { json: 'v1', etag: '"e"' })).toBe(first);
      expect(view.of({ ...card }, { json: 'v1', etag: '"e"' })).not.toBe(first);
    });

    it('goes to requests without A2A-Version or with 0.3, by header or query parameter', () => {
      const get = (headers: Record<string, string>, url = '/.well-known/agent-card.json') =>
        wantsV03Card({ headers, url } as unknown as IncomingMessage);
      expect(get({})).toBe(true);
      expect(get({ 'a2a-version': '' })).toBe(true);
      expect(get({ 'a2a-version': '0.3' })).toBe(true);
      expect(get({ 'a2a-version': '0.3.0' })).toBe(true);
      expect(get({ 'a2a-version': '1.0' })).toBe(false);
      expect(get({ 'a2a-version': '2.0' })).toBe(false);
      expect(get({}, '/.well-known/agent-card.json?A2A-Version=1.0')).toBe(false);
      expect(get({}, '/.well-known/agent-card.json?A2A-Version=0.3')).toBe(true);
    });
  });
});
