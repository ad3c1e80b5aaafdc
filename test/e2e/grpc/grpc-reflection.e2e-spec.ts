import { create, createFileRegistry, fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { startGrpcProbeApp, type GrpcProbeApp } from '../../fixtures/grpc-probe.fixture.js';

/**
 * gRPC server reflection (what grpcurl, grpcui and Postman use): the service is listed, and the files it hands out
 * build a strict descriptor registry (@bufbuild/protobuf checks names, imports and map entries as protoc does).
 */

const reflectionProto = join(
  dirname(createRequire(import.meta.url).resolve('@grpc/reflection/package.json')),
  'build/proto/grpc/reflection/v1/reflection.proto',
);
const reflectionPackage = grpc.loadPackageDefinition(loadSync(reflectionProto, { keepCase: true })) as unknown as {
  grpc: { reflection: { v1: { ServerReflection: grpc.ServiceClientConstructor } } };
};

interface ReflectionResponse {
  list_services_response?: { service: { name: string }[] };
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  error_response?: { error_code: number; error_message: string };
}

function reflect(address: string, request: object): Promise<ReflectionResponse> {
  const client = new reflectionPackage.grpc.reflection.v1.ServerReflection(address, grpc.credentials.createInsecure());
  return new Promise((resolve, reject) => {
    const call = (
      client as unknown as { ServerReflectionInfo(): grpc.ClientDuplexStream<object, ReflectionResponse> }
    ).ServerReflectionInfo();
    call.on('data', (response: ReflectionResponse) => {
      resolve(response);
      call.end();
    });
    call.on('error', reject);
    call.on('end', () => client.close());
    call.write(request);
  });
}

/** The status of a reflection stream whose one frame is `bytes` as they are, whatever they decode to. */
function reflectRaw(address: string, bytes: Buffer): Promise<grpc.StatusObject> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  return new Promise((resolve) => {
    const call = client.makeBidiStreamRequest(
      '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
      (raw: Buffer) => raw,
      (raw: Buffer) => raw,
    );
    call.on('data', () => undefined);
    call.on('error', () => undefined);
    call.on('status', (status: grpc.StatusObject) => {
      client.close();
      resolve(status);
    });
    call.write(bytes);
    call.end();
  });
}

function missingImports(files: Map<string, FileDescriptorProto>): string[] {
  return [...new Set([...files.values()].flatMap((f) => f.dependency))].filter((name) => !files.has(name));
}

/** A descriptor set lists every file after its imports. */
function importsFirst(files: FileDescriptorProto[]): FileDescriptorProto[] {
  const ordered: FileDescriptorProto[] = [];
  const placed = new Set<string>();
  while (ordered.length < files.length) {
    const ready = files.filter((f) => !placed.has(f.name) && f.dependency.every((d) => placed.has(d)));
    if (ready.length === 0) throw new Error('import cycle');
    ready.forEach((f) => (ordered.push(f), placed.add(f.name)));
  }
  return ordered;
}

describe('gRPC server reflection', () => {
  let probe: GrpcProbeApp;

  beforeAll(async () => {
    probe = await startGrpcProbeApp();
  });
  afterAll(() => probe?.app.close());

  it('lists lf.a2a.v1.A2AService', async () => {
    const response = await reflect(probe.grpcAddress, { list_services: '*' });
    expect(response.list_services_response?.service.map((s) => s.name)).toContain('lf.a2a.v1.A2AService');
  });

  it('answers a frame that does not decode with INVALID_ARGUMENT, and keeps serving', async () => {
    // Text (its first byte is a tag of wire type 7, which does not exist), and a field whose length never ends.
    for (const garbage of [Buffer.from('garbage'), Buffer.from([0x0a, 0xff, 0xff, 0xff])]) {
      expect(await reflectRaw(probe.grpcAddress, garbage)).toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    }
    const response = await reflect(probe.grpcAddress, { list_services: '*' });
    expect(response.list_services_response?.service.map((s) => s.name)).toContain('lf.a2a.v1.A2AService');
  });

  it('hands out the compiled files, which a strict client can build a registry from', async () => {
    // As grpcurl does: the files of the symbol, then any import still missing, by name.
    const files = new Map<string, FileDescriptorProto>();
    const add = (response: ReflectionResponse) =>
      response
        .file_descriptor_response!.file_descriptor_proto.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes))
        .forEach((f) => files.set(f.name, f));
    add(await reflect(probe.grpcAddress, { file_containing_symbol: 'lf.a2a.v1.A2AService' }));
    for (let missing = missingImports(files); missing.length > 0; missing = missingImports(files)) {
      for (const name of missing) add(await reflect(probe.grpcAddress, { file_by_filename: name }));
    }
    expect([...files.keys()]).toEqual(
      expect.arrayContaining([
        'a2a.proto',
        'google/api/annotations.proto',
        'google/api/field_behavior.proto',
        'google/protobuf/struct.proto',
      ]),
    );
    const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: importsFirst([...files.values()]) }));
    const service = registry.getService('lf.a2a.v1.A2AService')!;
    expect(service.methods.map((m) => m.name)).toHaveLength(11);
    expect(service.methods.find((m) => m.name === 'SubscribeToTask')?.methodKind).toBe('server_streaming');
    const card = registry.getMessage('lf.a2a.v1.AgentCard')!;
    expect(card.fields.find((f) => f.name === 'security_schemes')?.fieldKind).toBe('map');
    expect(card.fields.find((f) => f.name === 'security_schemes')?.jsonName).toBe('securitySchemes');
  });
});

describe('gRPC server reflection turned off', () => {
  let probe: GrpcProbeApp;

  beforeAll(async () => {
    probe = await startGrpcProbeApp({ grpc: { reflection: false } });
  });
  afterAll(() => probe?.app.close());

  it('is not served', async () => {
    await expect(reflect(probe.grpcAddress, { list_services: '*' })).rejects.toMatchObject({
      code: grpc.status.UNIMPLEMENTED,
    });
  });
});
