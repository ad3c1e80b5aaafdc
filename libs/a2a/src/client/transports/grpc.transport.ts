import * as grpc from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import {
  A2A_GRPC_PACKAGE,
  A2A_GRPC_SERVICE,
  A2A_PROTO_LOADER_OPTIONS,
  loadA2aProto,
} from '../../bindings/grpc/a2a-proto.loader.js';
import { ProtoJsonMapper, type ProtoObject } from '../../bindings/grpc/proto-json/proto-json.mapper.js';
import type { ErrorDetail } from '../../errors/a2a.error.js';
import type { JsonObject, StreamResponse } from '../../protocol/a2a.types.js';
import { A2aTransportError, type A2aClientError } from '../a2a-client.errors.js';
import { A2aClientMessages } from '../a2a-client.messages.js';
import type { ClientAddressGuard } from '../client-address.guard.js';
import { grpcProtocolError, retryAfterMsOf } from '../protocol-error.reader.js';
import { grpcIsPlaintext, parseGrpcUrl } from './grpc-target.js';
import type {
  ClientMethod,
  ClientTransport,
  StreamFrame,
  StreamingMethod,
  TransportCall,
  TransportLimits,
  UnaryMethod,
} from './client.transport.js';

/**
 * The gRPC binding (§10), on `@grpc/grpc-js` and the library's compiled descriptor set (`proto/a2a.binpb`), mapped to
 * ProtoJSON by the same mapper the server uses. This module is loaded with a dynamic `import()` only when a gRPC
 * interface is chosen, so the client's entry point never needs the optional gRPC peers.
 */

/** Request and response message of each rpc (a2a.proto). */
const RPC_TYPES: Readonly<Record<ClientMethod, readonly [request: string, response: string]>> = {
  SendMessage: ['SendMessageRequest', 'SendMessageResponse'],
  SendStreamingMessage: ['SendMessageRequest', 'StreamResponse'],
  GetTask: ['GetTaskRequest', 'Task'],
  ListTasks: ['ListTasksRequest', 'ListTasksResponse'],
  CancelTask: ['CancelTaskRequest', 'Task'],
  SubscribeToTask: ['SubscribeToTaskRequest', 'StreamResponse'],
  CreateTaskPushNotificationConfig: ['TaskPushNotificationConfig', 'TaskPushNotificationConfig'],
  GetTaskPushNotificationConfig: ['GetTaskPushNotificationConfigRequest', 'TaskPushNotificationConfig'],
  ListTaskPushNotificationConfigs: [
    'ListTaskPushNotificationConfigsRequest',
    'ListTaskPushNotificationConfigsResponse',
  ],
  DeleteTaskPushNotificationConfig: ['DeleteTaskPushNotificationConfigRequest', 'google.protobuf.Empty'],
  GetExtendedAgentCard: ['GetExtendedAgentCardRequest', 'AgentCard'],
};

const STATUS_DETAILS_KEY = 'grpc-status-details-bin';
const TYPE_URL_PREFIX = 'type.googleapis.com/';
/** What grpc-js says when the channel never connected: nothing reached the agent. */
const CONNECT_FAILURE =
  /No connection established|ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|Name resolution failed|Failed to connect/i;

interface Codec {
  serialize(json: JsonObject): Buffer;
  deserialize(bytes: Buffer): unknown;
}

/** The proto, the mapper and one codec per rpc, built once per process. */
class GrpcCodecs {
  private static instance: GrpcCodecs | undefined;
  readonly root: protobuf.Root;
  readonly mapper: ProtoJsonMapper;
  private readonly codecs = new Map<ClientMethod, Codec>();

  private constructor() {
    this.root = loadA2aProto().root;
    this.mapper = new ProtoJsonMapper(this.root);
  }

  static get(): GrpcCodecs {
    return (GrpcCodecs.instance ??= new GrpcCodecs());
  }

  codec(method: ClientMethod): Codec {
    let codec = this.codecs.get(method);
    if (!codec) {
      const [requestName, responseName] = RPC_TYPES[method].map((name) =>
        name.includes('.') ? name : `${A2A_GRPC_PACKAGE}.${name}`,
      );
      const requestType = this.root.lookupType(requestName);
      const responseType = this.root.lookupType(responseName);
      codec = {
        serialize: (json) =>
          Buffer.from(
            requestType.encode(requestType.fromObject(this.mapper.fromProtoJson(requestName, json))).finish(),
          ),
        deserialize: (bytes) =>
          this.mapper.toProtoJson(
            responseName,
            responseType.toObject(responseType.decode(bytes), A2A_PROTO_LOADER_OPTIONS) as ProtoObject,
          ),
      };
      this.codecs.set(method, codec);
    }
    return codec;
  }

  /** The `google.rpc.Status` trailer's details as ProtoJSON with `@type`; none when absent or unreadable. */
  details(metadata: grpc.Metadata | undefined): ErrorDetail[] {
    const bin = metadata?.get(STATUS_DETAILS_KEY)[0];
    if (!(bin instanceof Buffer)) return [];
    try {
      const statusType = this.root.lookupType('google.rpc.Status');
      const status = statusType.toObject(statusType.decode(bin), A2A_PROTO_LOADER_OPTIONS) as {
        details?: Array<{ type_url?: string; value?: Uint8Array }>;
      };
      return (status.details ?? []).flatMap((any) => {
        const typeUrl = any.type_url ?? '';
        try {
          const typeName = typeUrl.startsWith(TYPE_URL_PREFIX) ? typeUrl.slice(TYPE_URL_PREFIX.length) : typeUrl;
          const type = this.root.lookupType(typeName);
          const fields = this.mapper.toProtoJson(
            typeName,
            type.toObject(type.decode(any.value ?? new Uint8Array()), A2A_PROTO_LOADER_OPTIONS) as ProtoObject,
          );
          return [{ '@type': typeUrl, ...fields }];
        } catch {
          return [];
        }
      });
    } catch {
      return [];
    }
  }
}

/** Where and how a gRPC interface is dialled. */
export interface GrpcTransportOptions {
  readonly guard: ClientAddressGuard;
  readonly limits: TransportLimits;
  /** Trust and the client certificate (PEM). */
  readonly tls: { readonly ca?: Buffer; readonly cert?: Buffer; readonly key?: Buffer };
}

/**
 * One gRPC interface (`host:port`, optionally `grpc://`, `grpcs://`, `https://`, `http://` or `dns:///` before it).
 * TLS unless the address may use plaintext (the SSRF guard's allowlist, as for plain http) and no TLS material (`tls.ca`,
 * a client certificate) is configured; `grpcs://` and `https://` always mean TLS. The host is resolved through the SSRF guard once and the
 * checked address is what the channel dials (with the host name as TLS name and authority), so DNS cannot rebind it.
 */
export class GrpcTransport implements ClientTransport {
  readonly binding = 'GRPC';
  private client: Promise<grpc.Client> | undefined;
  private readonly codecs = GrpcCodecs.get();

  constructor(
    readonly url: string,
    private readonly options: GrpcTransportOptions,
  ) {}

  async unary(method: UnaryMethod, request: JsonObject, call: TransportCall): Promise<unknown> {
    const client = await this.channel();
    const codec = this.codecs.codec(method);
    if (call.signal.aborted) throw call.signal.reason;
    return new Promise((resolve, reject) => {
      const pending = client.makeUnaryRequest(
        rpcPath(method),
        codec.serialize,
        codec.deserialize,
        request,
        metadataOf(call),
        {},
        (error, value) => {
          call.signal.removeEventListener('abort', cancel);
          if (error) reject(call.signal.aborted ? call.signal.reason : this.error(error));
          else resolve(value);
        },
      );
      const cancel = () => pending.cancel();
      call.signal.addEventListener('abort', cancel, { once: true });
    });
  }

  async *stream(method: StreamingMethod, request: JsonObject, call: TransportCall): AsyncGenerator<StreamFrame> {
    const client = await this.channel();
    const codec = this.codecs.codec(method);
    if (call.signal.aborted) throw call.signal.reason;
    const stream = client.makeServerStreamRequest(
      rpcPath(method),
      codec.serialize,
      codec.deserialize,
      request,
      metadataOf(call),
      {},
    );
    const cancel = () => stream.cancel();
    call.signal.addEventListener('abort', cancel, { once: true });
    try {
      for await (const message of stream) yield { response: message as StreamResponse };
    } catch (error) {
      throw call.signal.aborted ? call.signal.reason : this.error(error as grpc.ServiceError);
    } finally {
      call.signal.removeEventListener('abort', cancel);
      stream.cancel();
    }
  }

  close(): void {
    void this.client?.then(
      (client) => client.close(),
      () => undefined,
    );
  }

  private channel(): Promise<grpc.Client> {
    this.client ??= this.connect();
    // A failed resolution (refused address, DNS) is not cached: the next call tries again.
    this.client.catch(() => (this.client = undefined));
    return this.client;
  }

  private async connect(): Promise<grpc.Client> {
    const target = parseGrpcUrl(this.url);
    const { host, port } = target;
    const [address] = await this.options.guard.resolve(host);
    const dialled = address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
    const tls = this.options.tls;
    const plaintext = grpcIsPlaintext(target, this.options.guard, tls.cert !== undefined || tls.ca !== undefined);
    const credentials = plaintext
      ? grpc.credentials.createInsecure()
      : grpc.credentials.createSsl(tls.ca ?? null, tls.key ?? null, tls.cert ?? null);
    const hostName = host.replace(/^\[|\]$/g, '');
    const channelOptions: grpc.ChannelOptions = {
      'grpc.max_receive_message_length': this.options.limits.maxResponseBytes,
      'grpc.default_authority': `${host}:${port}`,
      ...(plaintext || hostName === address ? {} : { 'grpc.ssl_target_name_override': hostName }),
    };
    return new grpc.Client(dialled, credentials, channelOptions);
  }

  private error(error: grpc.ServiceError): A2aClientError {
    const details = this.codecs.details(error.metadata);
    if (error.code === grpc.status.UNAVAILABLE && details.length === 0) {
      // No A2A status: the channel, not the agent, failed.
      return new A2aTransportError(
        'Network',
        A2aClientMessages.network(`gRPC ${this.url}`, error.details || error.message),
        {
          binding: 'GRPC',
          url: this.url,
          cause: error,
          connectFailed: CONNECT_FAILURE.test(error.details ?? ''),
        },
      );
    }
    const retryAfter = error.metadata?.get('retry-after')[0];
    const challenges = (error.metadata?.get('www-authenticate') ?? []).filter(
      (value): value is string => typeof value === 'string',
    );
    return grpcProtocolError(error.code, error.details ?? error.message, details, {
      binding: 'GRPC',
      url: this.url,
      retryAfterMs: retryAfterMsOf(typeof retryAfter === 'string' ? retryAfter : undefined),
      challenges,
    });
  }
}

function rpcPath(method: ClientMethod): string {
  return `/${A2A_GRPC_PACKAGE}.${A2A_GRPC_SERVICE}/${method}`;
}

function metadataOf(call: TransportCall): grpc.Metadata {
  const metadata = new grpc.Metadata();
  for (const [name, value] of Object.entries(call.headers)) metadata.set(name.toLowerCase(), value);
  return metadata;
}
