import { fromJSON, type Options, type PackageDefinition } from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withProtoFieldNames, type JsonDescriptor } from './proto-field-names.js';

/** The proto package and service of the binding (§10): `/lf.a2a.v1.A2AService/<Rpc>`. */
export const A2A_GRPC_PACKAGE = 'lf.a2a.v1';
export const A2A_GRPC_SERVICE = 'A2AService';

/** `proto/a2a.binpb`: `a2a.proto` compiled with every import, plus google.rpc.Status and its details (proto/README.md). */
const DESCRIPTOR_SET_FILE = join('proto', 'a2a.binpb');

/**
 * How proto-loader turns messages into objects, and so the shape the ProtoJSON mapper reads and writes: fields by their
 * proto names (snake_case with either protobufjs major, see `proto-field-names.ts`), enum values by name, int64 as
 * numbers (only Timestamp.seconds, far below 2^53), `bytes` as Buffers, and no defaults filled in, so an absent field
 * stays absent and proto3 `optional` presence survives.
 */
export const A2A_PROTO_LOADER_OPTIONS: Options = {
  enums: String,
  longs: Number,
  defaults: false,
  arrays: false,
  objects: false,
  oneofs: false,
};

export interface A2aProto {
  /** Reflection of every message in the set: the A2A messages, the well-known types, google.rpc.Status and details. */
  readonly root: protobuf.Root;
  /** What `@grpc/grpc-js` serves; its file descriptors, which server reflection hands out, are the compiled ones. */
  readonly packageDefinition: PackageDefinition;
}

let loaded: A2aProto | undefined;

/**
 * Reads the compiled descriptor set once per process (the result is immutable). Loading a compiled set rather than
 * parsing `a2a.proto` keeps googleapis out of the runtime dependencies, and gives reflection clients the files as
 * protoc would describe them.
 */
export function loadA2aProto(): A2aProto {
  if (loaded) return loaded;
  const bytes = readFileSync(findDescriptorSet());
  const described = (protobuf.Root as unknown as { fromDescriptor(set: unknown): protobuf.Root }).fromDescriptor(
    descriptor.FileDescriptorSet.decode(bytes),
  );
  restoreMaps(described.resolveAll());
  // One set of field names for protobufjs 7 and 8, in the mapper's root and in what grpc-js serves alike.
  const json = withProtoFieldNames(described.toJSON() as JsonDescriptor) as protobuf.INamespace;
  const root = protobuf.Root.fromJSON(json);
  root.resolveAll();
  loaded = {
    root,
    packageDefinition: withCompiledFiles(fromJSON(json, A2A_PROTO_LOADER_OPTIONS), filesOf(bytes)),
  };
  return loaded;
}

/** Found by walking up from this file, so it resolves from the sources (`libs/…`) and from the build (`dist/libs/…`). */
function findDescriptorSet(): string {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    const candidate = join(dir, DESCRIPTOR_SET_FILE);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`${DESCRIPTOR_SET_FILE} not found in any parent directory of ${start}`);
  }
}

/**
 * protobufjs reads a map field of a descriptor as the repeated `XxxEntry` message it is on the wire; turning those back
 * into map fields makes maps plain objects on both sides (`Struct.fields`, `AgentCard.security_schemes`, …), as when
 * protobufjs parses the `.proto` itself.
 */
function restoreMaps(namespace: protobuf.NamespaceBase): void {
  for (const nested of namespace.nestedArray) {
    if (nested instanceof protobuf.Type) {
      for (const field of nested.fieldsArray) {
        if (!isMapEntry(field.resolvedType, nested)) continue;
        const entry = field.resolvedType;
        const [key, value] = [entry.fields['key'], entry.fields['value']];
        const map = new protobuf.MapField(field.name, field.id, key.type, value.resolvedType?.fullName ?? value.type);
        nested.remove(field);
        nested.add(map);
        map.resolve();
        entry.parent?.remove(entry);
      }
    }
    if (nested instanceof protobuf.Namespace) restoreMaps(nested);
  }
}

/** A map's entry type is nested in the message and holds `key` and `value` (protobufjs marks more types `map_entry`). */
function isMapEntry(type: protobuf.Type | protobuf.Enum | null, parent: protobuf.Type): type is protobuf.Type {
  return (
    type instanceof protobuf.Type &&
    type.parent === parent &&
    type.options?.['map_entry'] === true &&
    Object.keys(type.fields).join() === 'key,value'
  );
}

/**
 * proto-loader describes the types it loaded with files it derives itself (one per package, without imports, with
 * renamed map entries), which strict reflection clients such as grpcurl reject; these are the files as compiled.
 */
function withCompiledFiles(definition: PackageDefinition, files: Buffer[]): PackageDefinition {
  return Object.fromEntries(
    Object.entries(definition).map(([name, entry]) => [
      name,
      'fileDescriptorProtos' in entry ? { ...entry, fileDescriptorProtos: files } : entry,
    ]),
  ) as PackageDefinition;
}

/** The raw bytes of each `file` (field 1) of a FileDescriptorSet. */
function filesOf(set: Buffer): Buffer[] {
  const reader = protobuf.Reader.create(set);
  const files: Buffer[] = [];
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag === ((1 << 3) | 2)) files.push(Buffer.from(reader.bytes()));
    else reader.skipType(tag & 7);
  }
  return files;
}
