import protobuf from 'protobufjs';
import { A2aError } from '../../errors/a2a.error.js';
import type { JsonObject, JsonValue } from '../../protocol/a2a.types.js';

/** A message as proto-loader decodes it and expects it for encoding: proto field names (see `A2A_PROTO_LOADER_OPTIONS`). */
export type ProtoObject = Record<string, unknown>;

const STRUCT = '.google.protobuf.Struct';
const VALUE = '.google.protobuf.Value';
const LIST_VALUE = '.google.protobuf.ListValue';
const TIMESTAMP = '.google.protobuf.Timestamp';

// ProtoJSON's Timestamp range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z.
const MIN_SECONDS = -62_135_596_800;
const MAX_SECONDS = 253_402_300_799;
const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * Converts between the ProtoJSON the engine speaks (`protocol/a2a.types.ts`) and proto-loader objects, for any message
 * of the loaded protos, by walking the message's reflection. What differs between the two forms:
 * - field names: lowerCamelCase in ProtoJSON (`message_id` → `messageId`), the proto's own names in proto;
 * - oneofs (Part content, SendMessageResponse, StreamResponse, SecurityScheme, OAuthFlows): both name the set member
 *   by its field, so they map field by field; presence is what tells the member;
 * - Struct / Value / ListValue are plain JSON in ProtoJSON, `{fields}` / `{string_value…}` / `{values}` in proto;
 * - Timestamp is an RFC 3339 string in ProtoJSON, `{seconds, nanos}` in proto;
 * - bytes are base64 in ProtoJSON, Buffers in proto;
 * - enums are names on both sides (proto-loader is set to `enums: String`; an unknown number passes as is, for the
 *   validators to reject);
 * - ProtoJSON leaves out empty repeated fields and maps; so does this mapper.
 */
export class ProtoJsonMapper {
  constructor(private readonly root: protobuf.Root) {}

  /**
   * A decoded message as ProtoJSON. A value ProtoJSON cannot hold (a Value with no kind, a non-finite number in a
   * Value, a Timestamp out of range) is the client's error: InvalidParams naming the field.
   */
  toProtoJson(typeName: string, message: ProtoObject): JsonObject {
    return this.messageToJson(this.type(typeName), message, '') as JsonObject;
  }

  /** ProtoJSON (as the engine produces it) as a message proto-loader can encode. */
  fromProtoJson(typeName: string, json: object): ProtoObject {
    return this.messageFromJson(this.type(typeName), json, '') as ProtoObject;
  }

  private type(name: string): protobuf.Type {
    return this.root.lookupType(name);
  }

  // ---- proto → ProtoJSON ----

  private messageToJson(type: protobuf.Type, message: ProtoObject, path: string): JsonValue {
    switch (type.fullName) {
      case STRUCT:
        return structToJson(message, path);
      case VALUE:
        return valueToJson(message, path);
      case LIST_VALUE:
        return listToJson(message, path);
      case TIMESTAMP:
        return timestampToJson(message, path);
    }
    const json: JsonObject = {};
    for (const field of type.fieldsArray) {
      const value = message[field.name];
      if (value === undefined || value === null) continue;
      const name = jsonName(field.name);
      const fieldPath = join(path, name);
      if (field.map) {
        const entries = Object.entries(value as ProtoObject);
        if (entries.length > 0) json[name] = Object.fromEntries(entries.map(([k, v]) => [k, this.fieldToJson(field, v, `${fieldPath}.${k}`)]));
      } else if (field.repeated) {
        const items = value as unknown[];
        if (items.length > 0) json[name] = items.map((item, i) => this.fieldToJson(field, item, `${fieldPath}[${i}]`));
      } else {
        json[name] = this.fieldToJson(field, value, fieldPath);
      }
    }
    return json;
  }

  private fieldToJson(field: protobuf.Field, value: unknown, path: string): JsonValue {
    if (field.resolvedType instanceof protobuf.Type) return this.messageToJson(field.resolvedType, value as ProtoObject, path);
    if (field.type === 'bytes') return Buffer.from(value as Uint8Array).toString('base64');
    return value as JsonValue;
  }

  // ---- ProtoJSON → proto ----

  private messageFromJson(type: protobuf.Type, json: unknown, path: string): unknown {
    switch (type.fullName) {
      case STRUCT:
        return structFromJson(json as JsonObject);
      case VALUE:
        return valueFromJson(json as JsonValue);
      case LIST_VALUE:
        return { values: (json as JsonValue[]).map(valueFromJson) };
      case TIMESTAMP:
        return timestampFromJson(json, path);
    }
    const message: ProtoObject = {};
    const fields = json as Record<string, unknown>;
    for (const field of type.fieldsArray) {
      const value = fields[jsonName(field.name)];
      // null is "unset", except in a google.protobuf.Value field, where it is the JSON null.
      if (value === undefined || (value === null && field.resolvedType?.fullName !== VALUE)) continue;
      const fieldPath = join(path, jsonName(field.name));
      if (field.map) {
        message[field.name] = Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, this.fieldFromJson(field, v, `${fieldPath}.${k}`)]));
      } else if (field.repeated) {
        message[field.name] = (value as unknown[]).map((item, i) => this.fieldFromJson(field, item, `${fieldPath}[${i}]`));
      } else {
        message[field.name] = this.fieldFromJson(field, value, fieldPath);
      }
    }
    return message;
  }

  private fieldFromJson(field: protobuf.Field, value: unknown, path: string): unknown {
    if (field.resolvedType instanceof protobuf.Type) return this.messageFromJson(field.resolvedType, value, path);
    if (field.type === 'bytes') return Buffer.from(value as string, 'base64');
    return value;
  }
}

function structToJson(struct: ProtoObject, path: string): JsonObject {
  const fields = (struct.fields ?? {}) as Record<string, ProtoObject>;
  return Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, valueToJson(value, join(path, key))]));
}

function listToJson(list: ProtoObject, path: string): JsonValue[] {
  return ((list.values ?? []) as ProtoObject[]).map((value, i) => valueToJson(value, `${path}[${i}]`));
}

function valueToJson(value: ProtoObject, path: string): JsonValue {
  if (value.null_value !== undefined) return null;
  if (value.number_value !== undefined) {
    const number = value.number_value as number;
    if (!Number.isFinite(number)) throw invalid(path, 'NaN and infinite numbers have no JSON form');
    return number;
  }
  if (value.string_value !== undefined) return value.string_value as string;
  if (value.bool_value !== undefined) return value.bool_value as boolean;
  if (value.struct_value !== undefined) return structToJson(value.struct_value as ProtoObject, path);
  if (value.list_value !== undefined) return listToJson(value.list_value as ProtoObject, path);
  throw invalid(path, 'A google.protobuf.Value needs one of its kinds set');
}

function structFromJson(json: JsonObject): ProtoObject {
  return { fields: Object.fromEntries(Object.entries(json).map(([key, value]) => [key, valueFromJson(value)])) };
}

function valueFromJson(json: JsonValue): ProtoObject {
  if (json === null) return { null_value: 'NULL_VALUE' };
  if (Array.isArray(json)) return { list_value: { values: json.map(valueFromJson) } };
  switch (typeof json) {
    case 'number':
      return { number_value: json };
    case 'string':
      return { string_value: json };
    case 'boolean':
      return { bool_value: json };
    default:
      return { struct_value: structFromJson(json) };
  }
}

/** RFC 3339 in UTC, with 3, 6 or 9 fractional digits: the engine's millisecond timestamps come back unchanged. */
function timestampToJson(timestamp: ProtoObject, path: string): string {
  const seconds = (timestamp.seconds ?? 0) as number;
  const nanos = (timestamp.nanos ?? 0) as number;
  if (!Number.isInteger(seconds) || seconds < MIN_SECONDS || seconds > MAX_SECONDS || !Number.isInteger(nanos) || nanos < 0 || nanos > 999_999_999) {
    throw invalid(path, 'Timestamp out of range (0001-01-01 to 9999-12-31, nanos 0 to 999999999)');
  }
  const iso = new Date(seconds * 1000 + Math.floor(nanos / 1e6)).toISOString();
  if (nanos % 1e6 === 0) return iso;
  const digits = String(nanos).padStart(9, '0');
  return `${iso.slice(0, 19)}.${nanos % 1e3 === 0 ? digits.slice(0, 6) : digits}Z`;
}

function timestampFromJson(json: unknown, path: string): ProtoObject {
  const match = typeof json === 'string' ? RFC3339.exec(json) : null;
  const millis = match ? Date.parse(`${match[1]}${match[3]}`) : NaN;
  if (!match || Number.isNaN(millis)) throw new Error(`${path || 'value'}: ${String(json)} is not an RFC 3339 timestamp`);
  return { seconds: millis / 1000, nanos: Number((match[2] ?? '').padEnd(9, '0')) };
}

/** ProtoJSON's default field name (protoc's `json_name`): each `_x` becomes `X`. */
function jsonName(protoName: string): string {
  return protoName.replace(/_(.)/g, (_, next: string) => next.toUpperCase());
}

function join(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

function invalid(field: string, description: string): A2aError {
  return A2aError.invalidParams([{ field, description }]);
}
