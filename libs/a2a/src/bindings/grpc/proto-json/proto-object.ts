/** A message as proto-loader decodes it and expects it for encoding: proto field names (see `A2A_PROTO_LOADER_OPTIONS`). */
export type ProtoObject = Record<string, unknown>;
