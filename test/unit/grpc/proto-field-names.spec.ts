import protobuf from 'protobufjs';
import { A2A_PROTO_LOADER_OPTIONS } from '../../../libs/a2a/src/bindings/grpc/a2a-proto.loader.js';
import { withProtoFieldNames, type JsonDescriptor } from '../../../libs/a2a/src/bindings/grpc/proto-field-names.js';
import { ProtoJsonMapper, type ProtoObject } from '../../../libs/a2a/src/bindings/grpc/proto-json/proto-json.mapper.js';

/**
 * protobufjs 8 reads a descriptor set with lowerCamelCase field names (the proto name kept as `protoName`), protobufjs 7
 * with the proto names. The loader renames the fields back before anything uses them, so that the proto-loader objects
 * the ProtoJSON mapper reads and writes have one shape under either major. These descriptors are `Root#toJSON()` as
 * each major writes it, so the conversion is tested whichever protobufjs this repository installs.
 */

/** google.protobuf.Value, Struct and ListValue, and a message holding a Value, as protobufjs 8 describes them. */
const asProtobufjs8: JsonDescriptor = {
  nested: {
    google: {
      nested: {
        protobuf: {
          nested: {
            Struct: { fields: { fields: { keyType: 'string', type: 'Value', id: 1 } } },
            Value: {
              oneofs: {
                kind: { oneof: ['nullValue', 'numberValue', 'stringValue', 'boolValue', 'structValue', 'listValue'] },
              },
              fields: {
                nullValue: { type: 'NullValue', id: 1, protoName: 'null_value' },
                numberValue: { type: 'double', id: 2, protoName: 'number_value' },
                stringValue: { type: 'string', id: 3, protoName: 'string_value' },
                boolValue: { type: 'bool', id: 4, protoName: 'bool_value' },
                structValue: { type: 'Struct', id: 5, protoName: 'struct_value' },
                listValue: { type: 'ListValue', id: 6, protoName: 'list_value' },
              },
            },
            NullValue: { values: { NULL_VALUE: 0 } },
            ListValue: { fields: { values: { rule: 'repeated', type: 'Value', id: 1 } } },
            FieldOptions: { fields: {}, extensions: [[1000, 536870911]] },
          },
        },
      },
    },
    test: {
      nested: {
        Holder: {
          fields: {
            dataValue: { type: 'google.protobuf.Value', id: 1, protoName: 'data_value' },
            label: { type: 'string', id: 2 },
          },
        },
        fieldBehavior: {
          rule: 'repeated',
          type: 'string',
          id: 1052,
          extend: 'google.protobuf.FieldOptions',
          protoName: 'field_behavior',
        },
      },
    },
  },
};

/** The same types as protobufjs 7 describes them: the proto names, no `protoName`. */
const asProtobufjs7 = withProtoFieldNames(asProtobufjs8);

/** A value through the wire and back, as the binding reads it: mapper → encode → decode → proto-loader object → mapper. */
function roundTrip(descriptor: JsonDescriptor, json: object): object {
  const root = protobuf.Root.fromJSON(descriptor as protobuf.INamespace);
  root.resolveAll();
  const mapper = new ProtoJsonMapper(root);
  const type = root.lookupType('test.Holder');
  const bytes = type.encode(type.fromObject(mapper.fromProtoJson('test.Holder', json))).finish();
  return mapper.toProtoJson('test.Holder', type.toObject(type.decode(bytes), A2A_PROTO_LOADER_OPTIONS) as ProtoObject);
}

describe('withProtoFieldNames', () => {
  it("names protobufjs 8's fields by their proto names, in oneofs and extensions too", () => {
    const value = asProtobufjs7.nested!.google.nested!.protobuf.nested!.Value;
    expect(Object.keys(value.fields!)).toEqual([
      'null_value',
      'number_value',
      'string_value',
      'bool_value',
      'struct_value',
      'list_value',
    ]);
    expect(value.oneofs!.kind.oneof).toEqual(Object.keys(value.fields!));
    expect(value.fields!.number_value).toEqual({ type: 'double', id: 2 });
    const test = asProtobufjs7.nested!.test.nested!;
    expect(Object.keys(test.Holder.fields!)).toEqual(['data_value', 'label']);
    expect(test.field_behavior).toMatchObject({ extend: 'google.protobuf.FieldOptions', id: 1052 });
    expect(test.fieldBehavior).toBeUndefined();
  });

  it("leaves protobufjs 7's descriptor as it is, and its input unchanged", () => {
    const before = JSON.stringify(asProtobufjs8);
    expect(withProtoFieldNames(asProtobufjs7)).toEqual(asProtobufjs7);
    withProtoFieldNames(asProtobufjs8);
    expect(JSON.stringify(asProtobufjs8)).toBe(before);
  });

  it('lets data (a google.protobuf.Value) through the mapper and the wire under either naming', () => {
    const json = { dataValue: { a: [1, 'x', null, true, { b: {} }] }, label: 'l' };
    expect(roundTrip(withProtoFieldNames(asProtobufjs8), json)).toEqual(json);
    expect(roundTrip(withProtoFieldNames(asProtobufjs7), json)).toEqual(json);
    // What a data part met over gRPC with protobufjs 8 before the renaming.
    expect(() => roundTrip(asProtobufjs8, json)).toThrow('A google.protobuf.Value needs one of its kinds set');
  });
});
