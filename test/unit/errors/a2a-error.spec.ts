import { A2A_ERROR_CODES, A2A_ERROR_DOMAIN, type A2aErrorKind } from '../../../libs/a2a/src/errors/a2a-error-codes.js';
import { A2aError } from '../../../libs/a2a/src/errors/a2a.error.js';

/** The nine A2A-specific errors of spec §5.4, copied cell by cell, with their `ErrorInfo.reason`. */
const A2A_ERRORS_TABLE: ReadonlyArray<[A2aErrorKind, number, number, string, string]> = [
  ['TaskNotFound', -32001, 404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
  ['TaskNotCancelable', -32002, 400, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE'],
  ['PushNotificationNotSupported', -32003, 400, 'FAILED_PRECONDITION', 'PUSH_NOTIFICATION_NOT_SUPPORTED'],
  ['UnsupportedOperation', -32004, 400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'],
  ['ContentTypeNotSupported', -32005, 400, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED'],
  ['InvalidAgentResponse', -32006, 500, 'INTERNAL', 'INVALID_AGENT_RESPONSE'],
  ['ExtendedAgentCardNotConfigured', -32007, 400, 'FAILED_PRECONDITION', 'EXTENDED_AGENT_CARD_NOT_CONFIGURED'],
  ['ExtensionSupportRequired', -32008, 400, 'FAILED_PRECONDITION', 'EXTENSION_SUPPORT_REQUIRED'],
  ['VersionNotSupported', -32009, 400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED'],
];

/**
 * The standard JSON-RPC errors and their standard messages (spec §9.5). Their reasons are this
 * module's own (the spec names none): the error name in UPPER_SNAKE_CASE, so clients can branch on a reason everywhere.
 */
const JSON_RPC_TABLE: ReadonlyArray<[A2aErrorKind, number, string, string]> = [
  ['ParseError', -32700, 'Invalid JSON payload', 'PARSE_ERROR'],
  ['InvalidRequest', -32600, 'Request payload validation error', 'INVALID_REQUEST'],
  ['MethodNotFound', -32601, 'Method not found', 'METHOD_NOT_FOUND'],
  ['InvalidParams', -32602, 'Invalid parameters', 'INVALID_PARAMS'],
  ['Internal', -32603, 'Internal error', 'INTERNAL'],
];

describe('A2A error codes (spec §5.4)', () => {
  it.each(A2A_ERRORS_TABLE)(
    '%s is JSON-RPC %i, HTTP %i, gRPC %s, reason %s',
    (kind, jsonRpc, http, grpcStatus, reason) => {
      const { defaultMessage: _ignored, ...code } = A2A_ERROR_CODES[kind];
      expect(code).toEqual({ jsonRpc, http, grpcStatus, reason });
    },
  );

  it('derives every reason from the error name (UPPER_SNAKE_CASE without "Error")', () => {
    for (const [kind, , , , reason] of A2A_ERRORS_TABLE) {
      expect(reason).toBe(kind.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase());
    }
  });

  it.each(JSON_RPC_TABLE)('%s is JSON-RPC %i with the standard message', (kind, jsonRpc, message, reason) => {
    expect(A2A_ERROR_CODES[kind]).toMatchObject({ jsonRpc, defaultMessage: message, reason });
  });

  it('keeps A2A-specific codes in the reserved block and the app-level ones (auth, rate limit, unavailable) out of both', () => {
    const appLevel = new Set(['Unauthenticated', 'PermissionDenied', 'TooManyRequests', 'Unavailable']);
    for (const [kind, code] of Object.entries(A2A_ERROR_CODES)) {
      const reserved = code.jsonRpc <= -32000 && code.jsonRpc >= -32768;
      if (appLevel.has(kind)) expect(reserved).toBe(false);
      else expect(reserved).toBe(true);
    }
  });

  it('maps the auth categories to 401/UNAUTHENTICATED and 403/PERMISSION_DENIED', () => {
    expect(A2A_ERROR_CODES.Unauthenticated).toMatchObject({ http: 401, grpcStatus: 'UNAUTHENTICATED' });
    expect(A2A_ERROR_CODES.PermissionDenied).toMatchObject({ http: 403, grpcStatus: 'PERMISSION_DENIED' });
    expect(A2A_ERROR_CODES.InvalidParams).toMatchObject({ http: 400, grpcStatus: 'INVALID_ARGUMENT' });
  });
});

describe('A2aError', () => {
  it('takes its default message from the table and its name from the kind', () => {
    const error = new A2aError('TaskNotCancelable');
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe('Task cannot be canceled');
    expect(error.name).toBe('TaskNotCancelableError');
    expect(error.code).toBe(A2A_ERROR_CODES.TaskNotCancelable);
  });

  it('puts ErrorInfo with the a2a-protocol.org domain and the reason in details()', () => {
    expect(A2A_ERROR_DOMAIN).toBe('a2a-protocol.org');
    expect(A2aError.taskNotFound('t-1').details()).toEqual([
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'TASK_NOT_FOUND',
        domain: 'a2a-protocol.org',
        metadata: { taskId: 't-1' },
      },
    ]);
  });

  it('omits empty ErrorInfo metadata', () => {
    expect(new A2aError('UnsupportedOperation', 'nope').details()).toEqual([
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'UNSUPPORTED_OPERATION',
        domain: 'a2a-protocol.org',
      },
    ]);
  });

  it('gives every error an ErrorInfo (spec §9.5, §10.6, §11.6)', () => {
    for (const [kind, , , , reason] of A2A_ERRORS_TABLE) {
      expect(new A2aError(kind).details()).toEqual([
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' },
      ]);
    }
    for (const [kind, , , reason] of JSON_RPC_TABLE) {
      expect(new A2aError(kind).details()).toEqual([
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' },
      ]);
    }
  });

  it('reports field violations as a google.rpc.BadRequest', () => {
    const error = A2aError.invalidParams([
      { field: 'message.parts', description: 'At least one part is required' },
      { field: 'configuration.historyLength', description: 'Must not be negative' },
    ]);
    expect(error.kind).toBe('InvalidParams');
    expect(error.message).toBe(
      'Invalid parameters: message.parts: At least one part is required; configuration.historyLength: Must not be negative',
    );
    expect(error.details()).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_PARAMS', domain: 'a2a-protocol.org' },
      {
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: [
          { field: 'message.parts', description: 'At least one part is required' },
          { field: 'configuration.historyLength', description: 'Must not be negative' },
        ],
      },
    ]);
  });

  it('lists ErrorInfo before BadRequest when an error has both', () => {
    const error = new A2aError('ContentTypeNotSupported', 'no', {}, [
      { field: 'message.parts[0].mediaType', description: 'image/x is not accepted' },
    ]);
    expect(error.details().map((d) => d['@type'])).toEqual([
      'type.googleapis.com/google.rpc.ErrorInfo',
      'type.googleapis.com/google.rpc.BadRequest',
    ]);
  });
});
