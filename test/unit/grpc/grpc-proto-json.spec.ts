import { createFileRegistry, fromBinary, fromJson, toBinary, toJson, type JsonValue } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import type { MessageTypeDefinition } from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import { readFileSync } from 'node:fs';
import { A2aError } from '../../../libs/a2a/src/errors/a2a.error.js';
import { loadA2aProto } from '../../../libs/a2a/src/bindings/grpc/a2a-proto.loader.js';
import { ProtoJsonMapper } from '../../../libs/a2a/src/bindings/grpc/proto-json/proto-json.mapper.js';

/**
 * The ProtoJSON ⇄ proto-loader mapping, over every message of lf.a2a.v1: each sample goes ProtoJSON → proto object →
 * wire bytes → proto object → ProtoJSON and must come back unchanged, and the wire bytes must read, in
 * @bufbuild/protobuf's conformant ProtoJSON, as the very same JSON (and the other way round).
 */

type Json = { [key: string]: JsonValue };

const { root, packageDefinition } = loadA2aProto();
const mapper = new ProtoJsonMapper(root);
const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync('proto/a2a.binpb')));

const STRUCT_SAMPLE: Json = {
  s: 'x',
  n: 1.5,
  b: false,
  nil: null,
  list: [1, 'two', null, { deep: [] }],
  obj: { inner: {} },
};

/** Every field of `type` set (one member per oneof, chosen by `pick`), nested messages filled the same way. */
function sample(type: protobuf.Type, pick = 0, depth = 0): Json {
  const json: Json = {};
  for (const field of type.fieldsArray) {
    const oneof = field.partOf;
    if (oneof && !oneof.name.startsWith('_') && oneof.fieldsArray[pick % oneof.fieldsArray.length] !== field) continue;
    const name = field.name.replace(/_(.)/g, (_, c: string) => c.toUpperCase());
    const value = (): JsonValue => scalarOrMessage(field, pick, depth);
    json[name] = field.map ? { k1: value(), k2: value() } : field.repeated ? [value(), value()] : value();
  }
  return json;
}

function scalarOrMessage(field: protobuf.Field, pick: number, depth: number): JsonValue {
  const type = field.resolvedType;
  if (type instanceof protobuf.Enum) return Object.keys(type.values).at(-1)!;
  if (type instanceof protobuf.Type) {
    switch (type.fullName) {
      case '.google.protobuf.Struct':
        return STRUCT_SAMPLE;
      case '.google.protobuf.Value':
        return [STRUCT_SAMPLE, 'text', 3, true, null][pick % 5];
      case '.google.protobuf.Timestamp':
        return '2026-01-05T10:15:00.123Z';
      default:
        return depth > 4 ? {} : sample(type, pick, depth + 1);
    }
  }
  switch (field.type) {
    case 'string':
      return `${field.name}-value`;
    case 'bytes':
      return Buffer.from(`${field.name} bytes`).toString('base64');
    case 'bool':
      return true;
    default:
      return 7;
  }
}

function roundTrip(typeName: string, json: Json): Json {
  const definition = packageDefinition[typeName] as MessageTypeDefinition<object, object>;
  const bytes = definition.serialize(mapper.fromProtoJson(typeName, json));
  return mapper.toProtoJson(typeName, definition.deserialize(bytes) as Record<string, unknown>);
}

function wireOf(typeName: string, json: Json): Buffer {
  const definition = packageDefinition[typeName] as MessageTypeDefinition<object, object>;
  return definition.serialize(mapper.fromProtoJson(typeName, json));
}

const messageTypes = Object.values((root.lookup('lf.a2a.v1') as protobuf.Namespace).nestedArray)
  .filter((nested): nested is protobuf.Type => nested instanceof protobuf.Type)
  .map((type) => type.fullName.slice(1));

const cases = messageTypes.flatMap((typeName) => {
  const type = root.lookupType(typeName);
  const variants = Math.max(
    1,
    ...type.oneofsArray.filter((o) => !o.name.startsWith('_')).map((o) => o.fieldsArray.length),
    5,
  );
  return Array.from({ length: variants }, (_, pick) => ({ typeName, pick, json: sample(type, pick) }));
});

describe('ProtoJsonMapper over every lf.a2a.v1 message', () => {
  it('covers all the messages of the proto', () => {
    expect(messageTypes).toHaveLength(44);
    expect(messageTypes).toEqual(
      expect.arrayContaining([
        'lf.a2a.v1.Part',
        'lf.a2a.v1.StreamResponse',
        'lf.a2a.v1.SecurityScheme',
        'lf.a2a.v1.OAuthFlows',
      ]),
    );
  });

  it.each(cases)(
    '$typeName #$pick: ProtoJSON → proto → wire → proto → ProtoJSON is the identity',
    ({ typeName, json }) => {
      expect(roundTrip(typeName, json)).toEqual(json);
    },
  );

  it.each(cases)(
    '$typeName #$pick: the wire bytes are that ProtoJSON for a conformant implementation',
    ({ typeName, json }) => {
      const desc = registry.getMessage(typeName)!;
      expect(toJson(desc, fromBinary(desc, wireOf(typeName, json)), { registry })).toEqual(json);
      const bytes = Buffer.from(toBinary(desc, fromJson(desc, json, { registry })));
      const definition = packageDefinition[typeName] as MessageTypeDefinition<object, object>;
      expect(mapper.toProtoJson(typeName, definition.deserialize(bytes) as Record<string, unknown>)).toEqual(json);
    },
  );
});

describe('ProtoJsonMapper: the cases that matter', () => {
  it('keeps a complete Task (spec §4.1.1) as it is', () => {
    const task: Json = {
      id: '0f8a3c5e-1b2d-4e6f-9a7b-3c2d1e0f9a8b',
      contextId: 'c295ea44-7543-4f78-b524-7a38915ad6e4',
      status: {
        state: 'TASK_STATE_COMPLETED',
        timestamp: '2026-01-05T10:15:00.123Z',
        message: {
          messageId: 'm-2',
          role: 'ROLE_AGENT',
          parts: [{ text: 'Done.' }],
          contextId: 'c295ea44-7543-4f78-b524-7a38915ad6e4',
        },
      },
      artifacts: [
        {
          artifactId: 'a-1',
          name: 'summary',
          parts: [{ text: 'Three items.' }, { data: { count: 3 }, mediaType: 'application/json' }],
        },
      ],
      history: [{ messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'Count the items' }] }],
    };
    expect(roundTrip('lf.a2a.v1.Task', task)).toEqual(task);
  });

  it('writes a lone surrogate (JSON holds one, UTF-8 cannot) as U+FFFD, so conformant clients parse the answer', () => {
    const json = JSON.parse(
      '{"messageId":"m-\\uda89","role":"ROLE_USER","parts":[{"text":"go \\uda89 x"},{"data":{"k\\udc00":["\\ud800"]}}],"metadata":{"a":"\\udfff"}}',
    ) as Json;
    const desc = registry.getMessage('lf.a2a.v1.Message')!;
    expect(toJson(desc, fromBinary(desc, wireOf('lf.a2a.v1.Message', json)), { registry })).toEqual({
      messageId: 'm-\ufffd',
      role: 'ROLE_USER',
      parts: [{ text: 'go \ufffd x' }, { data: { 'k\ufffd': ['\ufffd'] } }],
      metadata: { a: '\ufffd' },
    });
  });

  it('tells every oneof member apart, including a member set to its default', () => {
    for (const part of [
      { text: '' },
      { raw: '' },
      { url: 'https://x.example/f' },
      { data: null },
      { data: [] },
      { data: 'text' },
    ] as Json[]) {
      expect(roundTrip('lf.a2a.v1.Part', part)).toEqual(part);
    }
    for (const response of [
      { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
      { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'x' }] } },
    ] as Json[]) {
      expect(roundTrip('lf.a2a.v1.SendMessageResponse', response)).toEqual(response);
    }
  });

  it('keeps proto3 optional presence: historyLength 0 is not unset', () => {
    expect(roundTrip('lf.a2a.v1.GetTaskRequest', { id: 't', historyLength: 0 })).toEqual({ id: 't', historyLength: 0 });
    expect(roundTrip('lf.a2a.v1.GetTaskRequest', { id: 't' })).toEqual({ id: 't' });
  });

  it('writes timestamps with 3, 6 or 9 fractional digits, as precise as they are', () => {
    for (const timestamp of [
      '2026-01-05T10:15:00.000Z',
      '2026-01-05T10:15:00.123456Z',
      '2026-01-05T10:15:00.123456789Z',
      '0001-01-01T00:00:00.000Z',
    ]) {
      expect(roundTrip('lf.a2a.v1.TaskStatus', { state: 'TASK_STATE_WORKING', timestamp })).toEqual({
        state: 'TASK_STATE_WORKING',
        timestamp,
      });
    }
    expect(mapper.fromProtoJson('lf.a2a.v1.TaskStatus', { timestamp: '2026-01-05T12:15:00+02:00' })).toEqual({
      timestamp: { seconds: 1767608100, nanos: 0 },
    });
  });

  it('reads bytes as standard base64 whatever alphabet came in', () => {
    const raw = Buffer.from([0xfb, 0xff, 0xfe]);
    expect(roundTrip('lf.a2a.v1.Part', { raw: raw.toString('base64url') })).toEqual({ raw: raw.toString('base64') });
  });

  it('passes an unknown enum number through, for the validators to reject', () => {
    const bytes = Buffer.from(
      toBinary(
        registry.getMessage('lf.a2a.v1.Message')!,
        fromJson(registry.getMessage('lf.a2a.v1.Message')!, { messageId: 'm', role: 9 }),
      ),
    );
    const definition = packageDefinition['lf.a2a.v1.Message'] as MessageTypeDefinition<object, object>;
    expect(mapper.toProtoJson('lf.a2a.v1.Message', definition.deserialize(bytes) as Record<string, unknown>)).toEqual({
      messageId: 'm',
      role: 9,
    });
  });

  it('rejects what ProtoJSON cannot hold as InvalidParams naming the field', () => {
    const noKind = () => mapper.toProtoJson('lf.a2a.v1.Message', { metadata: { fields: { weird: {} } } });
    expect(noKind).toThrow(A2aError);
    expect(noKind).toThrow(/metadata\.weird/);
    const infinite = () => mapper.toProtoJson('lf.a2a.v1.Part', { data: { number_value: Infinity } });
    expect(infinite).toThrow(/data: NaN and infinite numbers/);
    const outOfRange = () =>
      mapper.toProtoJson('lf.a2a.v1.ListTasksRequest', { status_timestamp_after: { seconds: 253_402_300_800 } });
    expect(outOfRange).toThrow(/statusTimestampAfter: Timestamp out of range/);
  });
});

describe('ProtoJsonMapper: error paths', () => {
  function violationOf(run: () => unknown): unknown {
    try {
      run();
    } catch (error) {
      return error instanceof A2aError ? error.fieldViolations : (error as Error).message;
    }
    return 'no error';
  }

  it('names the field through repeated fields, maps, Structs and lists', () => {
    const artifacts = [
      { artifact_id: 'a' },
      {
        artifact_id: 'b',
        parts: [
          { text: 'x' },
          { data: { struct_value: { fields: { k: { list_value: { values: [{ bool_value: true }, {}] } } } } } },
        ],
      },
    ];
    expect(violationOf(() => mapper.toProtoJson('lf.a2a.v1.Task', { id: 't', artifacts }))).toEqual([
      { field: 'artifacts[1].parts[1].data.k[1]', description: 'A google.protobuf.Value needs one of its kinds set' },
    ]);
    expect(violationOf(() => mapper.toProtoJson('google.protobuf.Value', {}))).toEqual([
      { field: '', description: 'A google.protobuf.Value needs one of its kinds set' },
    ]);
    expect(
      violationOf(() =>
        mapper.toProtoJson('google.protobuf.ListValue', { values: [{ null_value: 'NULL_VALUE' }, {}] }),
      ),
    ).toEqual([{ field: '[1]', description: 'A google.protobuf.Value needs one of its kinds set' }]);
    expect(violationOf(() => mapper.toProtoJson('google.protobuf.Struct', { fields: { '': {} } }))).toEqual([
      { field: '', description: 'A google.protobuf.Value needs one of its kinds set' },
    ]);
    expect(
      violationOf(() =>
        mapper.toProtoJson('lf.a2a.v1.ListTasksResponse', {
          tasks: [{ id: 't', status: { timestamp: { seconds: 1, nanos: -1 } } }],
        }),
      ),
    ).toEqual([
      {
        field: 'tasks[0].status.timestamp',
        description: 'Timestamp out of range (0001-01-01 to 9999-12-31, nanos 0 to 999999999)',
      },
    ]);
  });

  it('names the field of a timestamp the engine got wrong', () => {
    expect(
      violationOf(() =>
        mapper.fromProtoJson('lf.a2a.v1.StreamResponse', {
          statusUpdate: { taskId: 't', status: { timestamp: 'yesterday' } },
        }),
      ),
    ).toBe('statusUpdate.status.timestamp: yesterday is not an RFC 3339 timestamp');
    expect(violationOf(() => mapper.fromProtoJson('google.protobuf.Timestamp', 'soon' as unknown as object))).toBe(
      'value: soon is not an RFC 3339 timestamp',
    );
  });
});
