import { Catch, HttpException, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { GrpcException, RpcException } from '@nestjs/microservices';
import { throwError, type Observable } from 'rxjs';
import { A2aError } from '../../errors/a2a.error.js';
import { A2aObservability } from '../../observability/a2a-observability.js';
import { A2aGrpcProto } from './a2a-grpc.proto.js';
import type { GrpcError } from './grpc-error.mapper.js';

/**
 * Answers the gRPC binding's failures in gRPC's terms (see {@link GrpcErrorMapper}). It catches only what the binding
 * owns or knows: protocol errors, and the HTTP or RPC exceptions a guard throws. Anything else a user's guard or
 * interceptor throws still reaches the app's own (global) exception filters, as on the HTTP bindings.
 */
@Catch(A2aError, HttpException, RpcException, GrpcException)
export class A2aGrpcExceptionFilter implements RpcExceptionFilter {
  constructor(
    private readonly proto: A2aGrpcProto,
    private readonly observability: A2aObservability,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): Observable<GrpcError> {
    this.observability.grpcCallFailed(host.switchToRpc().getData(), exception);
    return throwError(() => this.proto.errors.toGrpcError(exception));
  }
}
