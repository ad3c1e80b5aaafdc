import type { Metadata } from '@grpc/grpc-js';
import { Controller, UseFilters } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { catchError, defer, map, throwError, type Observable } from 'rxjs';
import type { A2aCallContext } from '../../context/call-context.js';
import { A2aEngine } from '../../engine/a2a.engine.js';
import { A2aError } from '../../errors/a2a.error.js';
import { toA2aError } from '../../errors/to-a2a-error.js';
import type { StreamResponse } from '../../protocol/a2a.types.js';
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
} from '../../protocol/request.validator.js';
import { A2aGrpcProto } from './a2a-grpc.proto.js';
import { A2A_GRPC_PACKAGE, A2A_GRPC_SERVICE } from './a2a-proto.loader.js';
import { grpcCallContext } from './grpc-call-context.js';
import { A2aGrpcExceptionFilter } from './grpc-exception.filter.js';
import { MalformedRequest } from './malformed-request.js';
import type { ProtoObject } from './proto-json.mapper.js';

/**
 * Every rpc of `lf.a2a.v1.A2AService` over the one engine. Each call is decoded to ProtoJSON, checked by the same
 * validators as the HTTP bindings, run, and its answer encoded back. As a Nest controller of the gRPC microservice it
 * runs through the app's guards, interceptors, pipes and filters like any handler. The two streaming rpcs return the
 * engine's per-task Observables, which Nest's gRPC server writes with `drain` backpressure and unsubscribes from when
 * the client cancels: the stream's watchers are released, the task keeps running (R49).
 */
@Controller()
@UseFilters(A2aGrpcExceptionFilter)
export class A2aGrpcController {
  constructor(
    private readonly engine: A2aEngine,
    private readonly proto: A2aGrpcProto,
  ) {}

  @GrpcMethod(A2A_GRPC_SERVICE, 'SendMessage')
  sendMessage(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(async () => {
      const [request, context] = this.accept('SendMessageRequest', data, validateSendMessageRequest, metadata, call);
      return this.encode('SendMessageResponse', await this.engine.sendMessage(request, context));
    });
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'SendStreamingMessage')
  sendStreamingMessage(data: unknown, metadata: Metadata, call: object): Observable<ProtoObject> {
    return this.stream(() => {
      const [request, context] = this.accept('SendMessageRequest', data, validateSendMessageRequest, metadata, call);
      return this.engine.sendStreamingMessage(request, context);
    });
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'GetTask')
  getTask(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(async () => {
      const [request, context] = this.accept('GetTaskRequest', data, validateGetTaskRequest, metadata, call);
      return this.encode('Task', await this.engine.getTask(request, context));
    });
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'ListTasks')
  listTasks(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(async () => {
      const [request, context] = this.accept('ListTasksRequest', data, validateListTasksRequest, metadata, call);
      return this.encode('ListTasksResponse', await this.engine.listTasks(request, context));
    });
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'CancelTask')
  cancelTask(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(async () => {
      const [request, context] = this.accept('CancelTaskRequest', data, validateCancelTaskRequest, metadata, call);
      return this.encode('Task', await this.engine.cancelTask(request, context));
    });
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'SubscribeToTask')
  subscribeToTask(data: unknown, metadata: Metadata, call: object): Observable<ProtoObject> {
    return this.stream(() => {
      const [request, context] = this.accept('SubscribeToTaskRequest', data, validateSubscribeToTaskRequest, metadata, call);
      return this.engine.subscribeToTask(request, context);
    });
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'CreateTaskPushNotificationConfig')
  createTaskPushNotificationConfig(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(async () => {
      this.accept('TaskPushNotificationConfig', data, validateTaskPushNotificationConfig, metadata, call);
      return this.engine.pushNotificationsUnsupported();
    });
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'GetTaskPushNotificationConfig')
  getTaskPushNotificationConfig(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(async () => {
      this.accept('GetTaskPushNotificationConfigRequest', data, validateGetTaskPushNotificationConfigRequest, metadata, call);
      return this.engine.pushNotificationsUnsupported();
    });
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'ListTaskPushNotificationConfigs')
  listTaskPushNotificationConfigs(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(async () => {
      this.accept('ListTaskPushNotificationConfigsRequest', data, validateListTaskPushNotificationConfigsRequest, metadata, call);
      return this.engine.pushNotificationsUnsupported();
    });
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'DeleteTaskPushNotificationConfig')
  deleteTaskPushNotificationConfig(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(async () => {
      this.accept('DeleteTaskPushNotificationConfigRequest', data, validateDeleteTaskPushNotificationConfigRequest, metadata, call);
      return this.engine.pushNotificationsUnsupported();
    });
  }

  @GrpcMethod(A2A_GRPC_SERVICE, 'GetExtendedAgentCard')
  getExtendedAgentCard(data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    return this.unary(async () => {
      this.accept('GetExtendedAgentCardRequest', data, validateGetExtendedAgentCardRequest, metadata, call);
      return this.engine.extendedAgentCardUnsupported();
    });
  }

  /**
   * The call context first (an unsupported `a2a-version` is the most useful answer to a client speaking another
   * version), then the request: decoded to ProtoJSON and validated; a frame that did not decode is a parse error.
   */
  private accept<T>(typeName: string, data: unknown, validate: (json: unknown) => T, metadata: Metadata, call: object): [T, A2aCallContext] {
    const context = grpcCallContext(metadata, call, tenantOf(data));
    if (data instanceof MalformedRequest) {
      throw new A2aError('ParseError', `The request is not a valid ${A2A_GRPC_PACKAGE}.${typeName} message: ${data.reason}`);
    }
    return [validate(this.proto.json.toProtoJson(qualified(typeName), data as ProtoObject)), context];
  }

  private encode(typeName: string, json: object): ProtoObject {
    return this.proto.json.fromProtoJson(qualified(typeName), json);
  }

  /** Every failure leaves as an A2aError, so the binding's filter answers it (unexpected ones as INTERNAL, logged). */
  private async unary(run: () => Promise<ProtoObject>): Promise<ProtoObject> {
    try {
      return await run();
    } catch (error) {
      throw toA2aError(error);
    }
  }

  /** Decoding happens on subscription, so its failures take the same path as the stream's own errors. */
  private stream(open: () => Observable<StreamResponse>): Observable<ProtoObject> {
    return defer(open).pipe(
      map((event) => this.encode('StreamResponse', event)),
      catchError((error: unknown) => throwError(() => toA2aError(error))),
    );
  }
}

const qualifiedNames = new Map<string, string>();

/** `lf.a2a.v1.<typeName>`, built once per type rather than per message. */
function qualified(typeName: string): string {
  let name = qualifiedNames.get(typeName);
  if (name === undefined) {
    name = `${A2A_GRPC_PACKAGE}.${typeName}`;
    qualifiedNames.set(typeName, name);
  }
  return name;
}

function tenantOf(data: unknown): string {
  const tenant = typeof data === 'object' && data !== null ? (data as { tenant?: unknown }).tenant : undefined;
  return typeof tenant === 'string' ? tenant : '';
}
