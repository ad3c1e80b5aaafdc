import { createFileRegistry, fromBinary, toJson, type JsonObject } from '@bufbuild/protobuf';
import { jest } from '@jest/globals';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { Metadata, status } from '@grpc/grpc-js';
import { ForbiddenException, Logger, UnauthorizedException } from '@nestjs/common';
import { GrpcUnavailableException, RpcException } from '@nestjs/microservices';
import { readFileSync } from 'node:fs';
import { A2A_ERROR_CODES, type A2aErrorKind } from '../../../libs/a2a/src/errors/a2a-error-codes.js';
import { A2aError } from '../../../libs/a2a/src/errors/a2a.error.js';
import { loadA2aProto } from '../../../libs/a2a/src/bindings/grpc/a2a-proto.loader.js';
import {
  GRPC_STATUS_DETAILS_KEY,
  GrpcErrorMapper,
  type GrpcError,
} from '../../../libs/a2a/src/bindings/grpc/grpc-error.mapper.js';
import { ProtoJsonMapper } from '../../../libs/a2a/src/bindings/grpc/proto-json/proto-json.mapper.js';

/** Errors as the gRPC binding answers them (spec §5.4): status code, message, and google.rpc.Status details. */

const { root } = loadA2aProto();
const mapper = new GrpcErrorMapper(root, new ProtoJsonMapper(root));
const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync('proto/a2a.binpb')));
const statusType = registry.getMessage('google.rpc.Status')!;

function statusOf(error: GrpcError) {
  const [bin] = error.metadata?.get(GRPC_STATUS_DETAILS_KEY) ?? [];
  return bin instanceof Buffer
    ? (toJson(statusType, fromBinary(statusType, bin), { registry }) as JsonObject)
    : undefined;
}

describe('GrpcErrorMapper', () => {
  it.each(Object.entries(A2A_ERROR_CODES) as [A2aErrorKind, (typeof A2A_ERROR_CODES)[A2aErrorKind]][])(
    '%s → %s with its ErrorInfo',
    (kind, code) => {
      const error = mapper.toGrpcError(new A2aError(kind, 'what happened', { taskId: 't-1' }));
      expect(error.code).toBe(status[code.grpcStatus as keyof typeof status]);
      expect(error).toMatchObject({ details: 'what happened', message: 'what happened' });
      expect(error.metadata).toBeInstanceOf(Metadata);
      const details = code.reason
        ? [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: code.reason,
              domain: 'a2a-protocol.org',
              metadata: { taskId: 't-1' },
            },
          ]
        : [];
      expect(statusOf(error)).toEqual({
        code: error.code,
        message: 'what happened',
        ...(details.length ? { details } : {}),
      });
    },
  );

  it('adds a BadRequest with the field violations of invalid params', () => {
    const error = mapper.toGrpcError(
      A2aError.invalidParams([{ field: 'message.parts', description: 'At least one part is required' }]),
    );
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(statusOf(error)?.details).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_PARAMS', domain: 'a2a-protocol.org' },
      {
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: [{ field: 'message.parts', description: 'At least one part is required' }],
      },
    ]);
  });

  it('keeps the trailers small when the error echoes huge client input (ids, thousands of violations)', () => {
    const id = '\u00e9'.repeat(20_000);
    const notFound = mapper.toGrpcError(A2aError.taskNotFound(id));
    expect(Buffer.byteLength(notFound.details)).toBeLessThanOrEqual(512);
    expect(notFound.details).toMatch(/^Task é+…$/);
    const bin = notFound.metadata!.get(GRPC_STATUS_DETAILS_KEY)[0] as Buffer;
    expect(bin.length).toBeLessThanOrEqual(2048);
    // The ErrorInfo (reason, domain) survives; its oversized metadata does not.
    expect(statusOf(notFound)?.details).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' },
    ]);

    const violations = Array.from({ length: 10_000 }, (_, i) => ({
      field: `message.referenceTaskIds[${i}]`,
      description: 'Must be a string',
    }));
    const invalid = mapper.toGrpcError(A2aError.invalidParams(violations));
    expect((invalid.metadata!.get(GRPC_STATUS_DETAILS_KEY)[0] as Buffer).length).toBeLessThanOrEqual(2048);
    const badRequest = (statusOf(invalid)?.details as JsonObject[]).find(
      (d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest',
    );
    expect((badRequest?.fieldViolations as unknown[]).length).toBeGreaterThan(0);
    expect((badRequest?.fieldViolations as unknown[])[0]).toEqual(violations[0]);
  });

  it('keeps the meaning of a guard’s HttpException', () => {
    expect(mapper.toGrpcError(new UnauthorizedException('no token'))).toMatchObject({
      code: status.UNAUTHENTICATED,
      details: 'no token',
    });
    expect(mapper.toGrpcError(new ForbiddenException())).toMatchObject({ code: status.PERMISSION_DENIED });
  });

  it('reads a guard that returned false as PERMISSION_DENIED', () => {
    const error = mapper.toGrpcError(new RpcException('Forbidden resource'));
    expect(error.code).toBe(status.PERMISSION_DENIED);
    expect(statusOf(error)?.details).toEqual([expect.objectContaining({ reason: 'PERMISSION_DENIED' })]);
  });

  it('passes errors the app shaped for gRPC through', () => {
    expect(mapper.toGrpcError(new RpcException({ code: status.ABORTED, message: 'try again' }))).toMatchObject({
      code: status.ABORTED,
      details: 'try again',
    });
    expect(mapper.toGrpcError(new GrpcUnavailableException('down'))).toEqual({
      code: status.UNAVAILABLE,
      details: 'down',
      message: 'down',
    });
    expect(mapper.toGrpcError(new RpcException('something else'))).toEqual({
      code: status.UNKNOWN,
      details: 'something else',
      message: 'something else',
    });
  });

  it('answers anything else as INTERNAL without its message', () => {
    const log = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const error = mapper.toGrpcError(new Error('database password is hunter2'));
    expect(error).toMatchObject({ code: status.INTERNAL, details: 'Internal error' });
    log.mockRestore();
  });
});
