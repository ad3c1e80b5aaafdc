import { assertGrpcPackages, GRPC_CLIENT_PACKAGES } from '../../bindings/grpc/grpc-packages.check.js';
import type { AgentInterface } from '../../protocol/a2a.types.js';
import { A2aTransportError } from '../a2a-client.errors.js';
import { A2aClientMessages } from '../a2a-client.messages.js';
import type { ClientAddressGuard } from '../client-address.guard.js';
import type { ClientHttp } from '../client-http.js';
import { keyOf } from '../interface.selector.js';
import type { ClientTransport, TransportLimits } from './client.transport.js';
import { JsonRpcTransport } from './jsonrpc.transport.js';
import { RestTransport } from './rest.transport.js';

/** What the gRPC transport needs for TLS, as PEM buffers. */
export interface GrpcTlsMaterial {
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

/**
 * One transport per interface of the card, made on first use and kept until the client closes. The gRPC transport's
 * module, and with it `@grpc/grpc-js` and the proto, is loaded with a dynamic `import()` the first time a gRPC
 * interface is used: an app that never calls one never loads them (they are optional peers).
 */
export class TransportFactory {
  private readonly transports = new Map<string, Promise<ClientTransport>>();

  constructor(
    private readonly http: ClientHttp,
    private readonly guard: ClientAddressGuard,
    private readonly limits: TransportLimits,
    private readonly grpcTls: GrpcTlsMaterial,
  ) {}

  /** @throws A2aTransportError `TransportUnavailable` for a gRPC interface without the gRPC packages. */
  transportFor(entry: AgentInterface): Promise<ClientTransport> {
    const key = keyOf(entry);
    let transport = this.transports.get(key);
    if (!transport) {
      transport = this.create(entry);
      this.transports.set(key, transport);
      transport.catch(() => this.transports.delete(key));
    }
    return transport;
  }

  close(): void {
    for (const transport of this.transports.values())
      transport.then(
        (t) => t.close(),
        () => undefined,
      );
    this.transports.clear();
  }

  private async create(entry: AgentInterface): Promise<ClientTransport> {
    switch (entry.protocolBinding) {
      case 'JSONRPC':
        return new JsonRpcTransport(entry.url, this.http, this.limits);
      case 'HTTP+JSON':
        return new RestTransport(entry.url, this.http, this.limits);
      case 'GRPC': {
        let grpcModule: typeof import('./grpc.transport.js');
        try {
          // Every missing package named at once, before the import would fail on the first.
          assertGrpcPackages('A gRPC interface of nestjs-a2a/client', GRPC_CLIENT_PACKAGES);
          grpcModule = await import('./grpc.transport.js');
        } catch (error) {
          throw new A2aTransportError(
            'TransportUnavailable',
            A2aClientMessages.grpcUnavailable((error as Error).message),
            { binding: 'GRPC', url: entry.url, cause: error },
          );
        }
        return new grpcModule.GrpcTransport(entry.url, { guard: this.guard, limits: this.limits, tls: this.grpcTls });
      }
      default:
        throw new A2aTransportError(
          'TransportUnavailable',
          A2aClientMessages.invalidResponse('The agent card', `binding ${entry.protocolBinding} is not supported`),
          { url: entry.url },
        );
    }
  }
}
