import protobuf from 'protobufjs';

/** protobufjs' own limit on nested messages, which its decoder applies too. */
const MAX_DEPTH = 100;

const WIRE = { varint: 0, fixed64: 1, delimited: 2, fixed32: 5 } as const;

/** The wire type a scalar field is written with. */
const SCALAR_WIRE: Readonly<Record<string, number>> = {
  double: WIRE.fixed64,
  fixed64: WIRE.fixed64,
  sfixed64: WIRE.fixed64,
  float: WIRE.fixed32,
  fixed32: WIRE.fixed32,
  sfixed32: WIRE.fixed32,
  string: WIRE.delimited,
  bytes: WIRE.delimited,
};

/**
 * Throws when a field the message type knows comes with another wire type than its own. protobufjs' decoders do not
 * check it: a number sent where a message is expected is read as that message's length and what follows as its bytes,
 * so a malformed frame could decode into a request the client never sent (another tenant, say). Google's parsers keep
 * such a field as unknown; refusing the frame is the answer the binding gives any malformed request (INVALID_ARGUMENT).
 * Unknown fields are skipped, as any parser does. Iterative over fields, recursive over nested messages up to
 * protobufjs' own limit.
 */
export function checkWireTypes(type: protobuf.Type, bytes: Uint8Array): void {
  check(type, protobuf.Reader.create(bytes), bytes.length, 0);
}

function check(type: protobuf.Type, reader: protobuf.Reader, end: number, depth: number): void {
  if (depth > MAX_DEPTH) throw new Error('maximum nesting depth exceeded');
  while (reader.pos < end) {
    const tag = reader.uint32();
    const wireType = tag & 7;
    const field = type.fieldsById[tag >>> 3];
    if (!field) {
      reader.skipType(wireType);
      continue;
    }
    field.resolve();
    if (field instanceof protobuf.MapField || field.resolvedType instanceof protobuf.Type) {
      expect(field, wireType, WIRE.delimited);
      const length = reader.uint32();
      const fieldEnd = reader.pos + length;
      if (fieldEnd > end) throw new Error(`field ${field.name} runs past its message`);
      if (field instanceof protobuf.MapField) checkMapEntry(field, reader, fieldEnd, depth + 1);
      else check(field.resolvedType as protobuf.Type, reader, fieldEnd, depth + 1);
      continue;
    }
    const own = field.resolvedType instanceof protobuf.Enum ? WIRE.varint : (SCALAR_WIRE[field.type] ?? WIRE.varint);
    // Repeated scalars may come packed, as one length-delimited run.
    if (!(field.repeated && wireType === WIRE.delimited && own !== WIRE.delimited)) expect(field, wireType, own);
    reader.skipType(wireType);
  }
  if (reader.pos !== end) throw new Error(`a field of ${type.name} runs past its message`);
}

/** A map entry: key (field 1) and value (field 2), the value a message or a scalar. */
function checkMapEntry(field: protobuf.MapField, reader: protobuf.Reader, end: number, depth: number): void {
  while (reader.pos < end) {
    const tag = reader.uint32();
    const wireType = tag & 7;
    if (tag >>> 3 === 2 && field.resolvedType instanceof protobuf.Type) {
      expect(field, wireType, WIRE.delimited);
      const length = reader.uint32();
      const valueEnd = reader.pos + length;
      if (valueEnd > end) throw new Error(`a value of ${field.name} runs past its entry`);
      check(field.resolvedType, reader, valueEnd, depth + 1);
      continue;
    }
    reader.skipType(wireType);
  }
}

function expect(field: protobuf.FieldBase, actual: number, expected: number): void {
  if (actual !== expected) throw new Error(`field ${field.name} has wire type ${actual}, not ${expected}`);
}
