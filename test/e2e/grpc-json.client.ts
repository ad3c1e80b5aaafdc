import { createFileRegistry, fromBinary, fromJson, toBinary, toJson, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A gRPC client of `lf.a2a.v1.A2AService` that speaks ProtoJSON, for tests. Encoding and decoding go through
 * @bufbuild/protobuf (a conformant ProtoJSON implementation) over the compiled descriptor set, so what the tests see
 * is independent of the library's own proto-loader mapping.
 */

// jest runs from the repository root.
const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync('proto/a2a.binpb')));
const service = registry.getService('lf.a2a.v1.A2AService')!;
const statusType = registry.getMessage('google.rpc.Status')!;

export type Json = { [key: string]: JsonValue };

export class GrpcJsonClient {
  readonly client: grpc.Client;

  constructor(
    readonly address: string,
    /** Sent with every call; `a2a-version: 1.0` unless overridden. */
    private readonly defaultMetadata: Record<string, string> = { 'a2a-version': '1.0' },
    /** TLS (and a client certificate) for servers that need them; insecure by default. */
    credentials: grpc.ChannelCredentials = grpc.credentials.createInsecure(),
  ) {
    this.client = new grpc.Client(address, credentials);
  }

  unary(rpc: string, request: Json, metadata: Record<string, string> = {}): Promise<Json> {
    const method = methodOf(rpc);
    return new Promise((resolve, reject) =>
      this.client.makeUnaryRequest(
        `/${service.typeName}/${rpc}`,
        encoder(method.input),
        decoder(method.output),
        request,
        this.metadata(metadata),
        {},
        (error, response) => (error ? reject(error) : resolve(response!)),
      ),
    );
  }

  stream(rpc: string, request: Json, metadata: Record<string, string> = {}): grpc.ClientReadableStream<Json> {
    const method = methodOf(rpc);
    return this.client.makeServerStreamRequest(`/${service.typeName}/${rpc}`, encoder(method.input), decoder(method.output), request, this.metadata(metadata), {});
  }

  /** Every event of a stream, then its end; rejects with the stream's error. */
  async collect(rpc: string, request: Json, metadata: Record<string, string> = {}): Promise<Json[]> {
    const events: Json[] = [];
    for await (const event of this.stream(rpc, request, metadata)) events.push(event as Json);
    return events;
  }

  close(): void {
    this.client.close();
  }

  private metadata(extra: Record<string, string>): grpc.Metadata {
    const metadata = new grpc.Metadata();
    for (const [key, value] of Object.entries({ ...this.defaultMetadata, ...extra })) metadata.set(key, value);
    return metadata;
  }
}

/** The `google.rpc.Status` of a failed call's `grpc-status-details-bin` trailer, as ProtoJSON (details with `@type`). */
export function statusDetailsOf(error: unknown): Json | undefined {
  const bin = (error as grpc.ServiceError).metadata?.get('grpc-status-details-bin')[0];
  if (!(bin instanceof Buffer)) return undefined;
  return toJson(statusType, fromBinary(statusType, bin), { registry }) as Json;
}

/** The `reason` of the call's ErrorInfo detail, if any. */
export function reasonOf(error: unknown): string | undefined {
  const details = (statusDetailsOf(error)?.details ?? []) as Json[];
  return details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo')?.reason as string | undefined;
}

/** A port that was free a moment ago on 127.0.0.1: Nest's gRPC server does not tell which port it bound. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function methodOf(rpc: string) {
  const method = service.methods.find((m) => m.name === rpc);
  if (!method) throw new Error(`No rpc ${rpc} in ${service.typeName}`);
  return method;
}

function encoder(type: DescMessage) {
  return (json: Json) => Buffer.from(toBinary(type, fromJson(type, json, { registry })));
}

function decoder(type: DescMessage) {
  return (bytes: Buffer) => toJson(type, fromBinary(type, bytes), { registry }) as Json;
}
