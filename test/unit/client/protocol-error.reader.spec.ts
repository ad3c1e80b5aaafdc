import { A2aError } from '../../../libs/a2a/src/errors/a2a.error.js';
import { jsonRpcError } from '../../../libs/a2a/src/bindings/jsonrpc/jsonrpc.envelope.js';
import { restErrorBody } from '../../../libs/a2a/src/bindings/rest/rest-error.response.js';
import { A2A_ERROR_CODES, type A2aErrorKind } from '../../../libs/a2a/src/errors/a2a-error-codes.js';
import { A2aProtocolError } from '../../../libs/a2a/src/client/a2a-client.errors.js';
import {
  grpcProtocolError,
  jsonRpcProtocolError,
  restProtocolError,
  retryAfterMsOf,
} from '../../../libs/a2a/src/client/protocol-error.reader.js';

/** What our server writes for every error kind, the client reads back as that kind, on each binding (spec §5.1). */
const origin = (binding: 'JSONRPC' | 'HTTP+JSON' | 'GRPC') => ({ binding, url: 'http://agent.test' });
const GRPC_CODES: Record<string, number> = {
  NOT_FOUND: 5,
  FAILED_PRECONDITION: 9,
  INVALID_ARGUMENT: 3,
  INTERNAL: 13,
  UNIMPLEMENTED: 12,
  RESOURCE_EXHAUSTED: 8,
  UNAUTHENTICATED: 16,
  PERMISSION_DENIED: 7,
  UNAVAILABLE: 14,
};
const KINDS = Object.keys(A2A_ERROR_CODES) as A2aErrorKind[];

describe.each(KINDS)('%s', (kind) => {
  const error = new A2aError(
    kind,
    'what happened',
    { taskId: 't-1' },
    kind === 'InvalidParams' ? [{ field: 'message.parts', description: 'required' }] : [],
  );

  it("round-trips on JSON-RPC, HTTP+JSON and gRPC, with the ErrorInfo and the binding's code", () => {
    const fromJsonRpc = jsonRpcProtocolError(jsonRpcError(1, error).error, 200, origin('JSONRPC'));
    const fromRest = restProtocolError(restErrorBody(error), error.code.http, origin('HTTP+JSON'));
    const fromGrpc = grpcProtocolError(
      GRPC_CODES[error.code.grpcStatus],
      error.message,
      error.details(),
      origin('GRPC'),
    );
    for (const read of [fromJsonRpc, fromRest, fromGrpc]) {
      expect(read).toBeInstanceOf(A2aProtocolError);
      expect(read).toMatchObject({
        kind,
        message: 'what happened',
        reason: error.code.reason,
        domain: 'a2a-protocol.org',
        errorInfo: { taskId: 't-1' },
      });
    }
    expect(fromJsonRpc.jsonRpcCode).toBe(error.code.jsonRpc);
    expect(fromRest).toMatchObject({ httpStatus: error.code.http, grpcStatus: error.code.grpcStatus });
    expect(fromGrpc.grpcStatus).toBe(error.code.grpcStatus);
    if (kind === 'InvalidParams')
      expect(fromRest.fieldViolations).toEqual([{ field: 'message.parts', description: 'required' }]);
  });
});

describe('without an ErrorInfo', () => {
  it('the JSON-RPC code, then the HTTP status, name the kind', () => {
    expect(jsonRpcProtocolError({ code: -32001, message: 'gone' }, 200, origin('JSONRPC')).kind).toBe('TaskNotFound');
    expect(jsonRpcProtocolError({ code: -1, message: '?' }, 401, origin('JSONRPC')).kind).toBe('Unauthenticated');
    // A v0.3 agent's free-form data is not a detail.
    expect(
      jsonRpcProtocolError({ code: -32602, message: 'bad', data: { field: 'x' } }, 200, origin('JSONRPC')).details,
    ).toEqual([]);
  });

  it("an HTTP status alone (a proxy's page) still says what it can, and Retry-After is kept", () => {
    expect(restProtocolError(undefined, 503, { ...origin('HTTP+JSON'), retryAfterMs: 2000 })).toMatchObject({
      kind: 'Unavailable',
      httpStatus: 503,
      retryAfterMs: 2000,
      retryable: true,
    });
    expect(restProtocolError('<html>', 404, origin('HTTP+JSON')).kind).toBe('MethodNotFound');
  });

  it('a gRPC status alone maps by its code', () => {
    expect(grpcProtocolError(16, 'who are you', [], origin('GRPC')).kind).toBe('Unauthenticated');
    expect(grpcProtocolError(2, 'unknown', [], origin('GRPC')).kind).toBe('Internal');
  });
});

it('reads Retry-After as seconds or as an HTTP date', () => {
  expect(retryAfterMsOf('3')).toBe(3000);
  expect(retryAfterMsOf(new Date(Date.now() + 5000).toUTCString(), Date.now())).toBeGreaterThan(3000);
  expect(retryAfterMsOf('soon')).toBeUndefined();
  expect(retryAfterMsOf(null)).toBeUndefined();
});
