import type { INestApplication, INestMicroservice, NestHybridApplicationOptions } from '@nestjs/common';
import { InvalidA2aOptionsError } from '../../errors/invalid-a2a-options.error.js';
import { A2aGrpcTransport } from './grpc.transport.js';

const NOT_ENABLED =
  'connectA2aGrpc(app): the gRPC binding is off. Turn it on with A2aModule.forRoot({ …, bindings: [grpcBinding({ url: "0.0.0.0:50051" })] }).';

/**
 * Attaches the gRPC binding to a Nest app as a hybrid microservice; start it with `app.startAllMicroservices()`
 * (before `app.listen()`). The card lists the GRPC interface once that server listens. `inheritAppConfig`
 * defaults to true here, so the app's global guards, interceptors, pipes
 * and filters (`app.useGlobal…`) also run on gRPC calls, as they do on the HTTP bindings; Nest's own default is false.
 */
export function connectA2aGrpc(
  app: INestApplication,
  hybridOptions: NestHybridApplicationOptions = { inheritAppConfig: true },
): INestMicroservice {
  let transport: A2aGrpcTransport;
  try {
    transport = app.get(A2aGrpcTransport);
  } catch {
    throw new InvalidA2aOptionsError(NOT_ENABLED);
  }
  return transport.connect(app, hybridOptions);
}
