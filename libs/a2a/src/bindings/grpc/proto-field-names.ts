/** A protobufjs JSON descriptor (`Root#toJSON()`), as far as field names go; everything else is carried over as is. */
export interface JsonDescriptor {
  nested?: Record<string, JsonDescriptor>;
  fields?: Record<string, JsonDescriptor>;
  oneofs?: Record<string, { oneof: string[] }>;
  /** protobufjs 8's record of a field's proto name, when it names the field lowerCamelCase. */
  protoName?: string;
  [other: string]: unknown;
}

/**
 * The descriptor with every field under its proto name (`number_value`, `message_id`), whichever protobufjs major
 * read the descriptor set: 7 keeps the proto names, while protobufjs 8 names the fields lowerCamelCase and keeps the
 * proto name aside as `protoName`. proto-loader objects are keyed by field name, and the ProtoJSON mapper, the error
 * details and the well-known types (`Value.string_value`, `Any.type_url`) read and write proto names; with
 * protobufjs 8's names, every data part and metadata would read as a Value with no kind. Extension fields (in
 * `nested`, with `extend`) are renamed alike. The input is left unchanged.
 */
export function withProtoFieldNames(descriptor: JsonDescriptor): JsonDescriptor {
  const out: JsonDescriptor = { ...descriptor };
  delete out.protoName;
  if (descriptor.fields) {
    const renamed = new Map<string, string>();
    out.fields = {};
    for (const [name, field] of Object.entries(descriptor.fields)) {
      const protoName = field.protoName ?? name;
      renamed.set(name, protoName);
      out.fields[protoName] = withProtoFieldNames(field);
    }
    if (descriptor.oneofs)
      out.oneofs = Object.fromEntries(
        Object.entries(descriptor.oneofs).map(([name, oneof]) => [
          name,
          { ...oneof, oneof: oneof.oneof.map((member) => renamed.get(member) ?? member) },
        ]),
      );
  }
  if (descriptor.nested)
    out.nested = Object.fromEntries(
      Object.entries(descriptor.nested).map(([name, nested]) => [
        nested.protoName ?? name,
        withProtoFieldNames(nested),
      ]),
    );
  return out;
}
