import { Injectable } from '@nestjs/common';
import type protobuf from 'protobufjs';
import type { PackageDefinition } from '@grpc/proto-loader';
import { A2A_GRPC_PACKAGE, A2A_GRPC_SERVICE, loadA2aProto } from './a2a-proto.loader.js';
import { GrpcErrorMapper } from './grpc-error.mapper.js';
import { withTolerantDecoders } from './malformed-request.js';
import { ProtoJsonMapper } from './proto-json/proto-json.mapper.js';
import { A2A_OPERATIONS } from '../a2a-operations.js';

/** The loaded A2A proto and what the binding derives from it, shared by the controller, the filter and the transport. */
@Injectable()
export class A2aGrpcProto {
  readonly json: ProtoJsonMapper;
  readonly errors: GrpcErrorMapper;
  /** What the gRPC server serves: `lf.a2a.v1`, its request decoders tolerant of malformed frames. */
  readonly packageDefinition: PackageDefinition;

  constructor() {
    const { root, packageDefinition } = loadA2aProto();
    this.json = new ProtoJsonMapper(root);
    this.errors = new GrpcErrorMapper(root, this.json);
    const requestTypes = new Map<string, protobuf.Type>(
      A2A_OPERATIONS.map((operation) => [operation.name, root.lookupType(operation.requestType)]),
    );
    this.packageDefinition = withTolerantDecoders(
      packageDefinition,
      `${A2A_GRPC_PACKAGE}.${A2A_GRPC_SERVICE}`,
      (method) => requestTypes.get(method),
    );
  }
}
