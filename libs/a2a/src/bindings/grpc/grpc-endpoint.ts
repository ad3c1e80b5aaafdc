import type { ServerCredentials } from '@grpc/grpc-js';
import type { A2aGrpcOptions } from './grpc-options.js';

/** Where the gRPC binding listens and what the card says about it; provided only when gRPC is on. */
export interface GrpcEndpoint {
  /** The bind address, `host:port`. */
  readonly url: string;
  /** The `host:port` of the card's GRPC interface (§5.8: no scheme). */
  readonly advertisedUrl: string;
  readonly reflection: boolean;
  /** Whether unary A2A calls take the DirectGrpcDispatcher. */
  readonly directDispatch: boolean;
  readonly credentials?: ServerCredentials;
}

export const A2A_GRPC_ENDPOINT = Symbol('A2A_GRPC_ENDPOINT');

const WILDCARD_HOST = /^(?:0\.0\.0\.0|\[::\]|::)(?=:\d+$)/;

export function grpcEndpoint(options: A2aGrpcOptions): GrpcEndpoint {
  return {
    url: options.url,
    // A wildcard is where to bind, not where to connect; deployments behind a proxy set advertisedUrl.
    advertisedUrl: options.advertisedUrl ?? options.url.replace(WILDCARD_HOST, 'localhost'),
    reflection: options.reflection ?? true,
    directDispatch: options.directDispatch ?? true,
    credentials: options.credentials,
  };
}
