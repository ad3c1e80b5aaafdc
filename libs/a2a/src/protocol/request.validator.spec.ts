import { A2aError, type FieldViolation } from '../errors/a2a.error.js';
import {
  validateCancelTaskRequest,
  validateDeleteTaskPushNotificationConfigRequest,
  validateGetExtendedAgentCardRequest,
  validateGetTaskPushNotificationConfigRequest,
  validateGetTaskRequest,
  validateListTaskPushNotificationConfigsRequest,
  validateListTasksRequest,
  validateSendMessageRequest,
  validateSubscribeToTaskRequest,
  validateTaskPushNotificationConfig,
} from './request.validator.js';

const userMessage = (overrides: Record<string, unknown> = {}) => ({
  messageId: 'm-1',
  role: 'ROLE_USER',
  parts: [{ text: 'hello' }],
  ...overrides,
});

/** The violations `run` throws with; fails the test if it does not throw InvalidParams. */
function violationsOf(run: () => unknown): FieldViolation[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(A2aError);
    expect((error as A2aError).kind).toBe('InvalidParams');
    return (error as A2aError).fieldViolations;
  }
  throw new Error('expected InvalidParams');
}

const fields = (violations: FieldViolation[]) => violations.map((v) => v.field);

describe('validateSendMessageRequest', () => {
  it('returns a clean typed copy of a valid request, dropping unknown fields (spec §5.7)', () => {
    const request = validateSendMessageRequest({
      tenant: 't1',
      message: userMessage({
        contextId: 'c-1',
        extensions: ['https://x.example/ext'],
        referenceTaskIds: ['t-0'],
        metadata: { a: 1 },
        surprise: true,
      }),
      configuration: { acceptedOutputModes: ['text/plain'], historyLength: 0, returnImmediately: true, legacy: 1 },
      metadata: { trace: 'x' },
      unknownTopLevel: 'ignored',
    });
    expect(request).toEqual({
      tenant: 't1',
      message: {
        messageId: 'm-1',
        role: 'ROLE_USER',
        parts: [{ text: 'hello' }],
        contextId: 'c-1',
        extensions: ['https://x.example/ext'],
        referenceTaskIds: ['t-0'],
        metadata: { a: 1 },
      },
      configuration: { acceptedOutputModes: ['text/plain'], historyLength: 0, returnImmediately: true },
      metadata: { trace: 'x' },
    });
  });

  it('keeps unset optional fields absent and an explicit historyLength 0 present (spec §5.7, §3.2.4)', () => {
    const request = validateSendMessageRequest({ message: userMessage(), configuration: { historyLength: 0 } });
    expect(request).toEqual({ message: userMessage(), configuration: { historyLength: 0 } });
    expect('tenant' in request).toBe(false);
  });

  it('treats null and empty optional ids as unset (ProtoJSON defaults)', () => {
    const request = validateSendMessageRequest({
      tenant: '',
      message: userMessage({ taskId: '', contextId: null }),
      metadata: null,
    });
    expect(request).toEqual({ message: userMessage() });
  });

  it('accepts each kind of part with its shared fields (spec §4.1.6)', () => {
    const parts = [
      { text: '' },
      { raw: 'iVBORw0KGgo=', filename: 'a.png', mediaType: 'image/png' },
      { url: 'https://f.example.com/r.pdf', filename: 'r.pdf', mediaType: 'application/pdf', metadata: { k: 'v' } },
      { data: { city: 'Paris' }, mediaType: 'application/json' },
      { data: [1, 2] },
      { data: 'a string is a JSON value too' },
    ];
    expect(validateSendMessageRequest({ message: userMessage({ parts }) }).message.parts).toEqual(parts);
  });

  it('accepts URL-safe and unpadded base64, normalized to padded standard base64', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0x01]);
    const urlSafe = bytes.toString('base64url'); // "-_-_AQ", unpadded
    const request = validateSendMessageRequest({ message: userMessage({ parts: [{ raw: urlSafe }] }) });
    expect(request.message.parts[0].raw).toBe(bytes.toString('base64'));
    expect(request.message.parts[0].raw).toBe('+/+/AQ==');
  });

  it('rejects bad base64', () => {
    for (const raw of ['not base64!', 'QUJD=', 'Q', 'QQ===', 'ab+_', 42]) {
      const violations = violationsOf(() => validateSendMessageRequest({ message: userMessage({ parts: [{ raw }] }) }));
      expect(violations).toEqual([
        { field: 'message.parts[0].raw', description: 'Must be base64 (standard or URL-safe)' },
      ]);
    }
  });

  it('requires exactly one of text, raw, url or data in each part (spec §4.1.6)', () => {
    const violations = violationsOf(() =>
      validateSendMessageRequest({
        message: userMessage({ parts: [{ text: 'ok' }, { mediaType: 'text/plain' }, { text: 'a', data: {} }] }),
      }),
    );
    expect(violations).toEqual([
      { field: 'message.parts[1]', description: 'A part needs exactly one of text, raw, url or data' },
      {
        field: 'message.parts[2]',
        description: 'A part holds exactly one of text, raw, url or data, not text and data',
      },
    ]);
  });

  it('rejects a url part that is not an absolute URL', () => {
    const violations = violationsOf(() =>
      validateSendMessageRequest({ message: userMessage({ parts: [{ url: 'relative/path' }, { url: '' }] }) }),
    );
    expect(fields(violations)).toEqual(['message.parts[0].url', 'message.parts[1].url']);
  });

  it('lists every problem of a request at once, each with its field path (spec §5.7)', () => {
    const violations = violationsOf(() =>
      validateSendMessageRequest({
        tenant: 5,
        message: { role: 'ROLE_USER', parts: [], metadata: [] },
        configuration: { historyLength: -1, returnImmediately: 'yes', acceptedOutputModes: ['text/plain', 3] },
        metadata: 'x',
      }),
    );
    expect(fields(violations).sort()).toEqual(
      [
        'tenant',
        'message.messageId',
        'message.parts',
        'message.metadata',
        'configuration.historyLength',
        'configuration.returnImmediately',
        'configuration.acceptedOutputModes[1]',
        'metadata',
      ].sort(),
    );
    for (const v of violations) expect(v.description).toEqual(expect.any(String));
  });

  it('requires a message with messageId, role and at least one part (spec §5.7)', () => {
    expect(violationsOf(() => validateSendMessageRequest({}))).toEqual([{ field: 'message', description: 'Required' }]);
    expect(violationsOf(() => validateSendMessageRequest({ message: 'hi' }))).toEqual([
      { field: 'message', description: 'Must be a JSON object' },
    ]);
    expect(fields(violationsOf(() => validateSendMessageRequest({ message: {} })))).toEqual([
      'message.messageId',
      'message.role',
      'message.parts',
    ]);
    expect(violationsOf(() => validateSendMessageRequest({ message: userMessage({ parts: [] }) }))).toEqual([
      { field: 'message.parts', description: 'At least one element is required' },
    ]);
    expect(violationsOf(() => validateSendMessageRequest({ message: userMessage({ messageId: '' }) }))).toEqual([
      { field: 'message.messageId', description: 'Required: a non-empty string' },
    ]);
    expect(violationsOf(() => validateSendMessageRequest({ message: userMessage({ parts: ['hi'] }) }))).toEqual([
      { field: 'message.parts[0]', description: 'Must be a JSON object' },
    ]);
  });

  it('accepts only ROLE_USER, by name (spec §5.5)', () => {
    const roleError = (role: unknown) =>
      violationsOf(() => validateSendMessageRequest({ message: userMessage({ role }) }))[0];
    expect(roleError('user')).toEqual({
      field: 'message.role',
      description: '"user" is a v0.3 role name; A2A v1.0 uses ROLE_USER',
    });
    expect(roleError('ROLE_AGENT')).toEqual({
      field: 'message.role',
      description: 'A message sent to an agent must have role ROLE_USER',
    });
    expect(roleError('ROLE_UNSPECIFIED')).toEqual({ field: 'message.role', description: 'Required: ROLE_USER' });
    expect(roleError(1)).toEqual({
      field: 'message.role',
      description: 'Must be ROLE_USER (enum values are sent by name)',
    });
    expect(roleError(undefined)).toEqual({ field: 'message.role', description: 'Required: ROLE_USER' });
  });

  it('rejects v0.3 messages with a pointer to the v1.0 shape (spec §A.2)', () => {
    const violations = violationsOf(() =>
      validateSendMessageRequest({
        message: {
          kind: 'message',
          messageId: 'm-1',
          role: 'user',
          parts: [
            { kind: 'text', text: 'hi' },
            { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain' } },
          ],
        },
      }),
    );
    expect(fields(violations)).toEqual([
      'message.kind',
      'message.role',
      'message.parts[0].kind',
      'message.parts[1].kind',
      'message.parts[1].file',
      'message.parts[1]',
    ]);
    expect(violations.find((v) => v.field === 'message.parts[1].file')?.description).toMatch(/raw.*url/);
    expect(violations.find((v) => v.field === 'message.kind')?.description).toMatch(/v0\.3/);
  });

  it('validates an inline push config without requiring its taskId (spec §3.2.2)', () => {
    const request = validateSendMessageRequest({
      message: userMessage(),
      configuration: {
        taskPushNotificationConfig: {
          url: 'https://hooks.example.com/a2a',
          token: 'tok',
          authentication: { scheme: 'Bearer', credentials: 'c' },
        },
      },
    });
    expect(request.configuration?.taskPushNotificationConfig).toEqual({
      url: 'https://hooks.example.com/a2a',
      token: 'tok',
      authentication: { scheme: 'Bearer', credentials: 'c' },
    });
    const violations = violationsOf(() =>
      validateSendMessageRequest({
        message: userMessage(),
        configuration: { taskPushNotificationConfig: { authentication: {} } },
      }),
    );
    expect(fields(violations)).toEqual([
      'configuration.taskPushNotificationConfig.url',
      'configuration.taskPushNotificationConfig.authentication.scheme',
    ]);
  });

  it('rejects a request that is not an object', () => {
    for (const input of [undefined, null, 'x', 1, []]) {
      expect(violationsOf(() => validateSendMessageRequest(input))).toEqual([
        { field: '', description: 'The request must be a JSON object' },
      ]);
    }
  });

  it('names the fields in the error message', () => {
    try {
      validateSendMessageRequest({ message: userMessage({ parts: [] }) });
    } catch (error) {
      expect((error as A2aError).message).toBe('Invalid parameters: message.parts: At least one element is required');
      expect((error as A2aError).details()).toEqual([
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_PARAMS', domain: 'a2a-protocol.org' },
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: [{ field: 'message.parts', description: 'At least one element is required' }],
        },
      ]);
    }
    expect.assertions(2);
  });
});

describe('validateGetTaskRequest', () => {
  it('returns id, tenant and historyLength', () => {
    expect(validateGetTaskRequest({ id: 't-1', historyLength: 3, tenant: 'acme', extra: 1 })).toEqual({
      id: 't-1',
      historyLength: 3,
      tenant: 'acme',
    });
    expect(validateGetTaskRequest({ id: 't-1', historyLength: 0 })).toEqual({ id: 't-1', historyLength: 0 });
  });

  it('requires a non-empty id and a non-negative integer historyLength (spec §3.2.4)', () => {
    expect(violationsOf(() => validateGetTaskRequest({}))).toEqual([
      { field: 'id', description: 'Required: a non-empty string' },
    ]);
    expect(violationsOf(() => validateGetTaskRequest({ id: 7 }))).toEqual([
      { field: 'id', description: 'Must be a string' },
    ]);
    for (const historyLength of [-1, 1.5, '3', true]) {
      expect(violationsOf(() => validateGetTaskRequest({ id: 't', historyLength }))).toEqual([
        { field: 'historyLength', description: 'Must be an integer from 0 to 2147483647' },
      ]);
    }
  });
});

describe('validateListTasksRequest', () => {
  it('accepts every filter and normalizes the timestamp to UTC', () => {
    expect(
      validateListTasksRequest({
        contextId: 'c-1',
        status: 'TASK_STATE_WORKING',
        pageSize: 100,
        pageToken: 'abc',
        historyLength: 2,
        statusTimestampAfter: '2026-01-05T12:15:00+02:00',
        includeArtifacts: false,
      }),
    ).toEqual({
      contextId: 'c-1',
      status: 'TASK_STATE_WORKING',
      pageSize: 100,
      pageToken: 'abc',
      historyLength: 2,
      statusTimestampAfter: '2026-01-05T10:15:00.000Z',
      includeArtifacts: false,
    });
    expect(validateListTasksRequest({})).toEqual({});
  });

  it('rejects a pageSize outside 1..100 instead of clamping it (spec §3.1.4, §6.5)', () => {
    for (const pageSize of [0, 101, 150, -5, 2.5]) {
      expect(violationsOf(() => validateListTasksRequest({ pageSize }))).toEqual([
        { field: 'pageSize', description: 'Must be an integer from 1 to 100' },
      ]);
    }
    expect(validateListTasksRequest({ pageSize: 1 }).pageSize).toBe(1);
  });

  it('accepts status only as a TaskState name other than UNSPECIFIED (spec §5.5, §3.1.4)', () => {
    expect(violationsOf(() => validateListTasksRequest({ status: 'completed' }))[0].description).toBe(
      '"completed" is a v0.3 state name; A2A v1.0 uses TASK_STATE_COMPLETED',
    );
    expect(violationsOf(() => validateListTasksRequest({ status: 'input-required' }))[0].description).toMatch(
      /TASK_STATE_INPUT_REQUIRED/,
    );
    for (const status of ['TASK_STATE_UNSPECIFIED', 'DONE', 3]) {
      expect(violationsOf(() => validateListTasksRequest({ status }))[0]).toEqual({
        field: 'status',
        description: expect.stringMatching(/^Must be one of TASK_STATE_SUBMITTED/),
      });
    }
  });

  it('rejects a malformed statusTimestampAfter and non-boolean includeArtifacts', () => {
    const violations = violationsOf(() =>
      validateListTasksRequest({ statusTimestampAfter: 'yesterday', includeArtifacts: 'true' }),
    );
    expect(violations).toEqual([
      { field: 'statusTimestampAfter', description: 'Must be an ISO 8601 timestamp, e.g. 2026-01-05T10:15:00.000Z' },
      { field: 'includeArtifacts', description: 'Must be true or false' },
    ]);
    for (const ts of ['2026-01-05', '2026-13-05T10:15:00Z', 1767608100000]) {
      expect(fields(violationsOf(() => validateListTasksRequest({ statusTimestampAfter: ts })))).toEqual([
        'statusTimestampAfter',
      ]);
    }
  });
});

describe('validateCancelTaskRequest and validateSubscribeToTaskRequest', () => {
  it('require an id; cancel carries metadata', () => {
    expect(validateCancelTaskRequest({ id: 't-1', metadata: { why: 'done' } })).toEqual({
      id: 't-1',
      metadata: { why: 'done' },
    });
    expect(fields(violationsOf(() => validateCancelTaskRequest({ metadata: 'x' })))).toEqual(['id', 'metadata']);
    expect(validateSubscribeToTaskRequest({ id: 't-1', tenant: 'a' })).toEqual({ id: 't-1', tenant: 'a' });
    expect(fields(violationsOf(() => validateSubscribeToTaskRequest({ id: '' })))).toEqual(['id']);
  });
});

describe('push notification config requests', () => {
  it('validateTaskPushNotificationConfig requires taskId and an http(s) url', () => {
    expect(
      validateTaskPushNotificationConfig({
        taskId: 't-1',
        url: 'https://h.example.com/hook',
        id: 'c-1',
        authentication: { scheme: 'Basic' },
      }),
    ).toEqual({ taskId: 't-1', url: 'https://h.example.com/hook', id: 'c-1', authentication: { scheme: 'Basic' } });
    expect(violationsOf(() => validateTaskPushNotificationConfig({}))).toEqual([
      { field: 'url', description: 'Required: an absolute URL' },
      { field: 'taskId', description: 'Required: a non-empty string' },
    ]);
    expect(
      violationsOf(() => validateTaskPushNotificationConfig({ taskId: 't', url: 'ftp://h.example.com/x' })),
    ).toEqual([{ field: 'url', description: 'Must be an http or https URL' }]);
    expect(
      fields(
        violationsOf(() =>
          validateTaskPushNotificationConfig({ taskId: 't', url: 'https://h.example.com', authentication: 'Bearer x' }),
        ),
      ),
    ).toEqual(['authentication']);
  });

  it('get and delete require taskId and id; list bounds pageSize', () => {
    expect(validateGetTaskPushNotificationConfigRequest({ taskId: 't', id: 'c' })).toEqual({ taskId: 't', id: 'c' });
    expect(fields(violationsOf(() => validateDeleteTaskPushNotificationConfigRequest({})))).toEqual(['taskId', 'id']);
    expect(validateListTaskPushNotificationConfigsRequest({ taskId: 't', pageSize: 0, pageToken: '' })).toEqual({
      taskId: 't',
      pageSize: 0,
    });
    expect(fields(violationsOf(() => validateListTaskPushNotificationConfigsRequest({ pageSize: 101 })))).toEqual([
      'taskId',
      'pageSize',
    ]);
  });
});

describe('validateGetExtendedAgentCardRequest', () => {
  it('accepts absent params and a tenant', () => {
    expect(validateGetExtendedAgentCardRequest(undefined)).toEqual({});
    expect(validateGetExtendedAgentCardRequest({ tenant: 'acme' })).toEqual({ tenant: 'acme' });
    expect(fields(violationsOf(() => validateGetExtendedAgentCardRequest({ tenant: 1 })))).toEqual(['tenant']);
  });
});

/** Builds `levels` nested arrays around 1 without recursion: `nested(2)` is `[[1]]`. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe('ProtoJSON field names (§5.7)', () => {
  it('accepts proto field names wherever JSON names are read, nested objects included', () => {
    const request = validateSendMessageRequest({
      message: {
        message_id: 'm-1',
        role: 'ROLE_USER',
        context_id: 'c-1',
        parts: [{ text: 'hi', media_type: 'text/plain' }],
      },
      configuration: { history_length: 2, return_immediately: true, accepted_output_modes: ['text/plain'] },
    });
    expect(request).toEqual({
      message: {
        messageId: 'm-1',
        role: 'ROLE_USER',
        contextId: 'c-1',
        parts: [{ text: 'hi', mediaType: 'text/plain' }],
      },
      configuration: { historyLength: 2, returnImmediately: true, acceptedOutputModes: ['text/plain'] },
    });
    expect(validateListTasksRequest({ context_id: 'c', page_size: 5, include_artifacts: true })).toEqual({
      contextId: 'c',
      pageSize: 5,
      includeArtifacts: true,
    });
  });

  it('leaves the keys of free-form values as they are', () => {
    const request = validateSendMessageRequest({
      message: userMessage({ metadata: { snake_key: { inner_key: 1 } }, parts: [{ data: { a_b: 1 } }] }),
    });
    expect(request.message.metadata).toEqual({ snake_key: { inner_key: 1 } });
    expect(request.message.parts[0].data).toEqual({ a_b: 1 });
  });

  it('refuses a field given under both names', () => {
    expect(violationsOf(() => validateSendMessageRequest({ message: userMessage({ message_id: 'm-2' }) }))).toEqual([
      { field: 'message.messageId', description: 'Given twice, as messageId and as message_id; send one of them' },
    ]);
  });

  it('ignores unknown fields under either spelling (spec §5.7)', () => {
    expect(validateGetTaskRequest({ id: 't', some_future_field: 1, someFutureField: 2 })).toEqual({ id: 't' });
  });
});

describe('integer fields are int32', () => {
  it.each([2147483648, 1e308, Number.MAX_SAFE_INTEGER])('refuses historyLength %d', (historyLength) => {
    expect(fields(violationsOf(() => validateGetTaskRequest({ id: 't', historyLength })))).toEqual(['historyLength']);
    expect(
      fields(
        violationsOf(() => validateSendMessageRequest({ message: userMessage(), configuration: { historyLength } })),
      ),
    ).toEqual(['configuration.historyLength']);
  });

  it('accepts the int32 maximum', () => {
    expect(validateGetTaskRequest({ id: 't', historyLength: 2147483647 })).toEqual({
      id: 't',
      historyLength: 2147483647,
    });
  });
});

describe('free-form values are bounded by maxJsonDepth', () => {
  const limits = { maxJsonDepth: 4 };

  it('accepts data and metadata nested up to the limit', () => {
    const request = validateSendMessageRequest(
      {
        message: userMessage({ parts: [{ data: nested(4) }], metadata: { a: { b: { c: {} } } } }),
        metadata: { x: [[[1]]] },
      },
      limits,
    );
    expect(request.message.parts[0].data).toEqual(nested(4));
  });

  it('refuses, naming the field and where inside it, one level more', () => {
    expect(
      violationsOf(() =>
        validateSendMessageRequest({ message: userMessage({ parts: [{ data: nested(5) }] }) }, limits),
      ),
    ).toEqual([
      {
        field: 'message.parts[0].data',
        description: 'Nested deeper than 4 levels (limits.maxJsonDepth), at data[0][0][0][0]',
      },
    ]);
    const metadata = { a: { b: { c: { d: {} } } } };
    expect(violationsOf(() => validateSendMessageRequest({ message: userMessage({ metadata }) }, limits))).toEqual([
      {
        field: 'message.metadata',
        description: 'Nested deeper than 4 levels (limits.maxJsonDepth), at metadata.a.b.c.d',
      },
    ]);
    expect(fields(violationsOf(() => validateCancelTaskRequest({ id: 't', metadata }, limits)))).toEqual(['metadata']);
    expect(
      fields(
        violationsOf(() =>
          validateSendMessageRequest({ message: userMessage({ parts: [{ text: 'x', metadata }] }) }, limits),
        ),
      ),
    ).toEqual(['message.parts[0].metadata']);
  });

  it('measures a value far past any call stack without overflowing (default limit 32)', () => {
    expect(
      fields(
        violationsOf(() =>
          validateSendMessageRequest({ message: userMessage({ parts: [{ data: nested(200_000) }] }) }),
        ),
      ),
    ).toEqual(['message.parts[0].data']);
    expect(
      validateSendMessageRequest({ message: userMessage({ parts: [{ data: nested(32) }] }) }).message.parts[0].data,
    ).toEqual(nested(32));
  });
});
