import type { Metadata } from '@grpc/grpc-js';
import { Controller, Inject, UseFilters, type Type } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { Writable } from 'node:stream';
import { catchError, defer, map, throwError, type Observable } from 'rxjs';
import { A2A_INVOCATION, type A2aInvocation, type A2aOperationName } from '../../context/a2a-invocation.js';
import { CallContextFactory } from '../call-context.factory.js';
import { A2aEngine } from '../../engine/a2a.engine.js';
import { skillGateOf, type SkillGate } from '../../skills/skill-guards.js';
import { SkillRegistry } from '../../skills/skill.registry.js';
import { A2aError } from '../../errors/a2a.error.js';
import { toA2aError } from '../../errors/to-a2a-error.js';
import {
  OPERATIONS_BY_NAME,
  type A2aOperation,
  type StreamingOperation,
  type UnaryOperation,
} from '../a2a-operations.js';
import { A2aGrpcProto } from './a2a-grpc.proto.js';
import { A2A_GRPC_SERVICE } from './a2a-proto.loader.js';
import { A2aGrpcExceptionFilter } from './grpc-exception.filter.js';
import { pacedByReader } from './paced-by-reader.js';
import type { ProtoObject } from './proto-json/proto-json.mapper.js';

/**
 * Every rpc of `lf.a2a.v1.A2AService` over the one engine. Each call arrives decoded to ProtoJSON and checked by the
 * same validators as the HTTP bindings (`a2aGrpcInvocations`, before Nest's pipeline), is run, and its answer encoded
 * back. As a Nest controller of the gRPC microservice it runs through the app's guards, interceptors, pipes and
 * filters like any handler: one method per rpc, registered with @GrpcMethod under the rpc's name, named like the HTTP
 * host's (`context.getHandler().name` is `sendMessage`, …). The two streaming rpcs return the engine's per-task
 * Observables, paced by the client (`pacedByReader`) when Nest's gRPC server writes them, and unsubscribed from when
 * the client cancels: the stream's watchers are released, the task keeps running (spec §3.5.2).
 */
@UseFilters(A2aGrpcExceptionFilter)
class GrpcOperations {
  constructor(
    private readonly engine: A2aEngine,
    private readonly proto: A2aGrpcProto,
    private readonly skills: SkillRegistry,
    @Inject(CallContextFactory) private readonly contexts: CallContextFactory,
  ) {}

  @GrpcMethod(A2A_GRPC_SERVICE, 'SendMessage')
  sendMessage(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(unary('SendMessage'), [data, metadata, call]);
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'SendStreamingMessage')
  sendStreamingMessage(data: unknown, metadata: Metadata, call: object): Observable<ProtoObject> {
    return this.stream(streaming('SendStreamingMessage'), [data, metadata, call]);
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'GetTask')
  getTask(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(unary('GetTask'), [data, metadata, call]);
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'ListTasks')
  listTasks(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(unary('ListTasks'), [data, metadata, call]);
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'CancelTask')
  cancelTask(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(unary('CancelTask'), [data, metadata, call]);
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'SubscribeToTask')
  subscribeToTask(data: unknown, metadata: Metadata, call: object): Observable<ProtoObject> {
    return this.stream(streaming('SubscribeToTask'), [data, metadata, call]);
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'CreateTaskPushNotificationConfig')
  createTaskPushNotificationConfig(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(unary('CreateTaskPushNotificationConfig'), [data, metadata, call]);
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'GetTaskPushNotificationConfig')
  getTaskPushNotificationConfig(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(unary('GetTaskPushNotificationConfig'), [data, metadata, call]);
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'ListTaskPushNotificationConfigs')
  listTaskPushNotificationConfigs(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(unary('ListTaskPushNotificationConfigs'), [data, metadata, call]);
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'DeleteTaskPushNotificationConfig')
  deleteTaskPushNotificationConfig(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(unary('DeleteTaskPushNotificationConfig'), [data, metadata, call]);
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'GetExtendedAgentCard')
  getExtendedAgentCard(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(unary('GetExtendedAgentCard'), [data, metadata, call]);
  }

  /** Every failure leaves as an A2aError, so the binding's filter answers it (unexpected ones as INTERNAL, logged). */
  private async unary(operation: UnaryOperation, args: GrpcArgs): Promise<ProtoObject> {
    try {
      const invocation = invocationOf(args[0]);
      const answer = await operation.run(
        this.engine,
        invocation.request,
        this.contexts.of(invocation, args[2]),
        this.gate(args),
      );
      return this.proto.json.fromProtoJson(operation.responseType, answer);
    } catch (error) {
      throw toA2aError(error);
    }
  }

  /** The call context is made on subscription, so its failures take the same path as the stream's own errors. */
  private stream(operation: StreamingOperation, args: GrpcArgs): Observable<ProtoObject> {
    return defer(() => {
      const invocation = invocationOf(args[0]);
      const events = operation.run(
        this.engine,
        invocation.request,
        this.contexts.of(invocation, args[2]),
        this.gate(args),
      );
      const call = args[2];
      // Through grpc-js (not the direct path, whose writer bounds a slow reader itself), Nest's writer would not.
      return call instanceof Writable ? events.pipe(pacedByReader(call)) : events;
    }).pipe(
      map((event) => this.proto.json.fromProtoJson(STREAM_RESPONSE, event)),
      catchError((error: unknown) => throwError(() => toA2aError(error))),
    );
  }

  /** The skill's own guards, with the arguments the app's guards got. */
  private gate(args: GrpcArgs): SkillGate | undefined {
    return skillGateOf(this.skills, { type: 'rpc', args });
  }
}

/** A gRPC handler's arguments: the request, the metadata, the call. */
type GrpcArgs = [data: unknown, metadata: Metadata, call: object];

/** The invocation `a2aGrpcInvocations` attached to the request; every A2A call that reaches a handler has one. */
function invocationOf(data: unknown): A2aInvocation {
  const invocation = (data as { [A2A_INVOCATION]?: A2aInvocation } | undefined)?.[A2A_INVOCATION];
  if (!invocation) throw new A2aError('Internal', 'The gRPC request was not decoded by the A2A interceptor');
  return invocation;
}

const STREAM_RESPONSE = 'lf.a2a.v1.StreamResponse';

function operation(name: A2aOperationName): A2aOperation {
  return OPERATIONS_BY_NAME.get(name)!;
}

function unary(name: A2aOperationName): UnaryOperation {
  return operation(name) as UnaryOperation;
}

function streaming(name: A2aOperationName): StreamingOperation {
  return operation(name) as StreamingOperation;
}

/**
 * The controller class of one `grpcBinding(…)`: its own subclass, so the guards and interceptors A2aModule is given
 * (options `guards`, `interceptors`) are applied to it alone.
 */
export function createGrpcController(): Type {
  @Controller()
  class A2aGrpcController extends GrpcOperations {}
  return A2aGrpcController;
}
