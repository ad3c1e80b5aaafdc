import {
  Inject,
  Injectable,
  Logger,
  type INestApplication,
  type INestMicroservice,
  type NestHybridApplicationOptions,
} from '@nestjs/common';
import type { CustomStrategy, GrpcOptions } from '@nestjs/microservices';
import { A2A_MODULE_OPTIONS } from '../../a2a-module-definition.js';
import type { A2aModuleOptions } from '../../a2a-module.options.js';
import { AgentCardService } from '../../card/agent-card.service.js';
import { A2aEngine } from '../../engine/a2a.engine.js';
import { ExtensionRegistry } from '../../extensions/extension.registry.js';
import { A2aObservability } from '../../observability/a2a-observability.js';
import { A2aGrpcServer } from './a2a-grpc.server.js';
import { a2aGrpcInvocations } from './grpc-invocations.js';
import { DEFAULT_MAX_BODY_BYTES } from '../http/request-body.js';
import { A2aGrpcProto } from './a2a-grpc.proto.js';
import { A2A_GRPC_PACKAGE } from './a2a-proto.loader.js';
import { A2A_GRPC_ENDPOINT, type GrpcEndpoint } from './grpc-endpoint.js';
import { windowedStreamWrites } from './grpc-write-window.js';
import { DirectGrpcDispatcher } from './direct/direct-grpc.dispatcher.js';
import type { NestGrpcHandler } from './direct/direct-grpc.options.js';
import { addReflection, malformedReflectionRequests } from './grpc-reflection.js';

/**
 * The microservice options of the gRPC binding: Nest's gRPC transport on `@grpc/grpc-js`, serving the already loaded
 * `lf.a2a.v1` package at the configured address, with server reflection unless it is turned off. The request size
 * limit is the HTTP bindings' (`limits.maxBodyBytes`); RESOURCE_EXHAUSTED beyond it. Unary A2A calls are served by
 * the {@link DirectGrpcDispatcher} unless `directDispatch` is off; server streams are written by grpc-js, in batches
 * through {@link windowedStreamWrites}.
 */
@Injectable()
export class A2aGrpcTransport {
  constructor(
    @Inject(A2A_GRPC_ENDPOINT) private readonly endpoint: GrpcEndpoint,
    @Inject(A2A_MODULE_OPTIONS) private readonly options: A2aModuleOptions,
    private readonly proto: A2aGrpcProto,
    private readonly cards: AgentCardService,
    private readonly engine: A2aEngine,
    private readonly extensions: ExtensionRegistry,
    private readonly observability: A2aObservability,
  ) {}

  /** Attaches the binding to `app` as a hybrid microservice; the card lists it once it listens. */
  connect(app: INestApplication, hybridOptions: NestHybridApplicationOptions): INestMicroservice {
    return app.connectMicroservice(this.microserviceOptions, hybridOptions);
  }

  /** The microservice: Nest's gRPC server (A2aGrpcServer) serving the binding. */
  private get microserviceOptions(): CustomStrategy {
    const advertise = () => this.cards.advertise({ url: this.endpoint.advertisedUrl, protocolBinding: 'GRPC' });
    const server = new A2aGrpcServer(
      this.grpcOptions,
      advertise,
      this.endpoint.directDispatch ? (handlerOf) => this.directDispatcher(handlerOf) : undefined,
    );
    // Nest's processing hooks wrap each call before its guards: the call's span starts there, and ends with its answer.
    server.setOnProcessingStartHook((_transport, context, done) => this.observability.grpcCallStarted(context, done));
    server.setOnProcessingEndHook((_transport, request) => this.observability.grpcCallEnded(request));
    return { strategy: server };
  }

  private directDispatcher(handlerOf: (rpc: string) => NestGrpcHandler | undefined): DirectGrpcDispatcher {
    return new DirectGrpcDispatcher({
      proto: this.proto,
      limits: () => this.engine.validationLimits,
      negotiate: (requested) => this.extensions.negotiate(requested),
      maxReceiveBytes: this.maxReceiveBytes,
      observability: this.observability,
      handlerOf,
      logger: new Logger('A2aGrpc'),
    });
  }

  private get maxReceiveBytes(): number {
    return this.options.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  }

  private get grpcOptions(): GrpcOptions['options'] {
    return {
      package: A2A_GRPC_PACKAGE,
      packageDefinition: this.proto.packageDefinition,
      url: this.endpoint.url,
      credentials: this.endpoint.credentials,
      maxReceiveMessageLength: this.maxReceiveBytes,
      channelOptions: {
        interceptors: [
          a2aGrpcInvocations(
            this.proto,
            () => this.engine.validationLimits,
            (requested) => this.extensions.negotiate(requested),
          ),
          windowedStreamWrites,
          ...(this.endpoint.reflection ? [malformedReflectionRequests] : []),
        ],
      },
      onLoadPackageDefinition: this.endpoint.reflection ? addReflection : undefined,
    };
  }
}
