import protobuf from 'protobufjs';
import { A2aError } from '../../errors/a2a.error.js';
import type { JsonObject, JsonValue } from '../../protocol/a2a.types.js';
import { setOwn } from '../../store/data-copy.js';

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

/** The well-known types whose ProtoJSON form is not an object of their fields. */
type WellKnown = 'struct' | 'value' | 'list' | 'timestamp' | undefined;

/**
 * What the mapper needs of one message type, worked out once from its reflection so that no message pays for name
 * conversions, type lookups or `fieldsArray` getters again.
 */
interface MessagePlan {
  readonly wellKnown: WellKnown;
  readonly fields: FieldPlan[];
}

interface FieldPlan {
  readonly protoName: string;
  readonly jsonName: string;
  /** How the field appears in an error path: `.jsonName`. */
  readonly segment: string;
  readonly map: boolean;
  readonly repeated: boolean;
  /** The field's message type; undefined for scalars and enums (enum names pass through unchanged). */
  readonly message: MessagePlan | undefined;
  readonly bytes: boolean;
  /** A google.protobuf.Value field, where JSON null is a value rather than "unset". */
  readonly keepsNull: boolean;
}

/**
 * A value ProtoJSON cannot hold, thrown where it is found and given its path on the way out: each enclosing field or
 * element adds its segment in a `catch`, so the success path builds no path strings.
 */
class Misfit {
  /** Innermost first. */
  readonly segments: string[] = [];

  constructor(readonly toError: (path: string) => Error) {}

  path(): string {
    const path = this.segments.reverse().join('');
    return path.startsWith('.') ? path.slice(1) : path;
  }
}

/**
 * Converts between the ProtoJSON the engine speaks (`protocol/a2a.types.ts`) and proto-loader objects, for any message
 * of the loaded protos, from a plan of each message type computed once from its reflection. What differs between the
 * two forms:
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
  private readonly byName = new Map<string, MessagePlan>();
  private readonly byType = new Map<protobuf.Type, MessagePlan>();

  constructor(private readonly root: protobuf.Root) {}

  /**
   * A decoded message as ProtoJSON. A value ProtoJSON cannot hold (a Value with no kind, a non-finite number in a
   * Value, a Timestamp out of range) is the client's error: InvalidParams naming the field.
   */
  toProtoJson(typeName: string, message: ProtoObject): JsonObject {
    const plan = this.plan(typeName);
    try {
      return messageToJson(plan, message) as JsonObject;
    } catch (error) {
      throw error instanceof Misfit ? error.toError(error.path()) : error;
    }
  }

  /** ProtoJSON (as the engine produces it) as a message proto-loader can encode. */
  fromProtoJson(typeName: string, json: object): ProtoObject {
    const plan = this.plan(typeName);
    try {
      return messageFromJson(plan, json) as ProtoObject;
    } catch (error) {
      throw error instanceof Misfit ? error.toError(error.path()) : error;
    }
  }

  private plan(typeName: string): MessagePlan {
    let plan = this.byName.get(typeName);
    if (!plan) {
      plan = this.planOf(this.root.lookupType(typeName));
      this.byName.set(typeName, plan);
    }
    return plan;
  }

  /** Registered before its fields are planned, so recursive types (Struct ⇄ Value) end. */
  private planOf(type: protobuf.Type): MessagePlan {
    const known = this.byType.get(type);
    if (known) return known;
    const plan: MessagePlan = { wellKnown: wellKnownOf(type.fullName), fields: [] };
    this.byType.set(type, plan);
    for (const field of type.fieldsArray) {
      const resolved = field.resolve().resolvedType;
      const name = jsonName(field.name);
      plan.fields.push({
        protoName: field.name,
        jsonName: name,
        segment: `.${name}`,
        map: field.map,
        repeated: field.repeated,
        message: resolved instanceof protobuf.Type ? this.planOf(resolved) : undefined,
        bytes: field.type === 'bytes',
        keepsNull: resolved?.fullName === VALUE,
      });
    }
    return plan;
  }
}

function wellKnownOf(fullName: string): WellKnown {
  switch (fullName) {
    case STRUCT:
      return 'struct';
    case VALUE:
      return 'value';
    case LIST_VALUE:
      return 'list';
    case TIMESTAMP:
      return 'timestamp';
  }
  return undefined;
}

/** Adds `segment` to the path of a {@link Misfit} passing through; anything else is rethrown as is. */
function within(error: unknown, segment: string): unknown {
  if (error instanceof Misfit) error.segments.push(segment);
  return error;
}

// ---- proto → ProtoJSON ----

function messageToJson(plan: MessagePlan, message: ProtoObject): JsonValue {
  switch (plan.wellKnown) {
    case 'struct':
      return structToJson(message);
    case 'value':
      return valueToJson(message);
    case 'list':
      return listToJson(message);
    case 'timestamp':
      return timestampToJson(message);
  }
  const json: JsonObject = {};
  for (const field of plan.fields) {
    const value = message[field.protoName];
    if (value === undefined || value === null) continue;
    try {
      if (field.map) {
        const entries = value as ProtoObject;
        const keys = Object.keys(entries);
        if (keys.length === 0) continue;
        const out: JsonObject = {};
        for (const key of keys) {
          try {
            setOwn(out, key, fieldToJson(field, entries[key]));
          } catch (error) {
            throw within(error, `.${key}`);
          }
        }
        json[field.jsonName] = out;
      } else if (field.repeated) {
        const items = value as unknown[];
        if (items.length === 0) continue;
        const out = new Array<JsonValue>(items.length);
        for (let i = 0; i < items.length; i++) {
          try {
            out[i] = fieldToJson(field, items[i]);
          } catch (error) {
            throw within(error, `[${i}]`);
          }
        }
        json[field.jsonName] = out;
      } else {
        json[field.jsonName] = fieldToJson(field, value);
      }
    } catch (error) {
      throw within(error, field.segment);
    }
  }
  return json;
}

function fieldToJson(field: FieldPlan, value: unknown): JsonValue {
  if (field.message) return messageToJson(field.message, value as ProtoObject);
  if (field.bytes) return Buffer.from(value as Uint8Array).toString('base64');
  return value as JsonValue;
}

function structToJson(struct: ProtoObject): JsonObject {
  const fields = (struct.fields ?? {}) as Record<string, ProtoObject>;
  const json: JsonObject = {};
  for (const key of Object.keys(fields)) {
    try {
      setOwn(json, key, valueToJson(fields[key]));
    } catch (error) {
      throw within(error, `.${key}`);
    }
  }
  return json;
}

function listToJson(list: ProtoObject): JsonValue[] {
  const values = (list.values ?? []) as ProtoObject[];
  const json = new Array<JsonValue>(values.length);
  for (let i = 0; i < values.length; i++) {
    try {
      json[i] = valueToJson(values[i]);
    } catch (error) {
      throw within(error, `[${i}]`);
    }
  }
  return json;
}

function valueToJson(value: ProtoObject): JsonValue {
  if (value.null_value !== undefined) return null;
  if (value.number_value !== undefined) {
    const number = value.number_value as number;
    if (!Number.isFinite(number)) throw invalid('NaN and infinite numbers have no JSON form');
    return number;
  }
  if (value.string_value !== undefined) return value.string_value as string;
  if (value.bool_value !== undefined) return value.bool_value as boolean;
  if (value.struct_value !== undefined) return structToJson(value.struct_value as ProtoObject);
  if (value.list_value !== undefined) return listToJson(value.list_value as ProtoObject);
  throw invalid('A google.protobuf.Value needs one of its kinds set');
}

/** RFC 3339 in UTC, with 3, 6 or 9 fractional digits: the engine's millisecond timestamps come back unchanged. */
function timestampToJson(timestamp: ProtoObject): string {
  const seconds = (timestamp.seconds ?? 0) as number;
  const nanos = (timestamp.nanos ?? 0) as number;
  if (!Number.isInteger(seconds) || seconds < MIN_SECONDS || seconds > MAX_SECONDS || !Number.isInteger(nanos) || nanos < 0 || nanos > 999_999_999) {
    throw invalid('Timestamp out of range (0001-01-01 to 9999-12-31, nanos 0 to 999999999)');
  }
  const iso = new Date(seconds * 1000 + Math.floor(nanos / 1e6)).toISOString();
  if (nanos % 1e6 === 0) return iso;
  const digits = String(nanos).padStart(9, '0');
  return `${iso.slice(0, 19)}.${nanos % 1e3 === 0 ? digits.slice(0, 6) : digits}Z`;
}

// ---- ProtoJSON → proto ----

function messageFromJson(plan: MessagePlan, json: unknown): unknown {
  switch (plan.wellKnown) {
    case 'struct':
      return structFromJson(json as JsonObject);
    case 'value':
      return valueFromJson(json as JsonValue);
    case 'list':
      return { values: (json as JsonValue[]).map(valueFromJson) };
    case 'timestamp':
      return timestampFromJson(json);
  }
  const message: ProtoObject = {};
  const fields = json as Record<string, unknown>;
  for (const field of plan.fields) {
    const value = fields[field.jsonName];
    // null is "unset", except in a google.protobuf.Value field, where it is the JSON null.
    if (value === undefined || (value === null && !field.keepsNull)) continue;
    try {
      if (field.map) {
        const entries = value as Record<string, unknown>;
        const out: ProtoObject = {};
        for (const key of Object.keys(entries)) {
          try {
            setOwn(out, wellFormed(key), fieldFromJson(field, entries[key]));
          } catch (error) {
            throw within(error, `.${key}`);
          }
        }
        message[field.protoName] = out;
      } else if (field.repeated) {
        const items = value as unknown[];
        const out = new Array<unknown>(items.length);
        for (let i = 0; i < items.length; i++) {
          try {
            out[i] = fieldFromJson(field, items[i]);
          } catch (error) {
            throw within(error, `[${i}]`);
          }
        }
        message[field.protoName] = out;
      } else {
        message[field.protoName] = fieldFromJson(field, value);
      }
    } catch (error) {
      throw within(error, field.segment);
    }
  }
  return message;
}

function fieldFromJson(field: FieldPlan, value: unknown): unknown {
  if (field.message) return messageFromJson(field.message, value);
  if (field.bytes) return Buffer.from(value as string, 'base64');
  return typeof value === 'string' ? wellFormed(value) : value;
}

/**
 * `text` as UTF-8 can carry it: a lone surrogate (which JSON, and so the other bindings, accept) becomes U+FFFD.
 * protobufjs would write it as ill-formed UTF-8, which conformant clients refuse to parse: the whole answer would be
 * unreadable over gRPC. Node ≥ 20 has `toWellFormed`; TypeScript's ES2023 lib does not declare it.
 */
function wellFormed(text: string): string {
  return (text as string & { toWellFormed(): string }).toWellFormed();
}

function structFromJson(json: JsonObject): ProtoObject {
  const fields: ProtoObject = {};
  for (const key of Object.keys(json)) setOwn(fields, wellFormed(key), valueFromJson(json[key]));
  return { fields };
}

function valueFromJson(json: JsonValue): ProtoObject {
  if (json === null) return { null_value: 'NULL_VALUE' };
  if (Array.isArray(json)) return { list_value: { values: json.map(valueFromJson) } };
  switch (typeof json) {
    case 'number':
      return { number_value: json };
    case 'string':
      return { string_value: wellFormed(json) };
    case 'boolean':
      return { bool_value: json };
    default:
      return { struct_value: structFromJson(json) };
  }
}

function timestampFromJson(json: unknown): ProtoObject {
  const match = typeof json === 'string' ? RFC3339.exec(json) : null;
  const millis = match ? Date.parse(`${match[1]}${match[3]}`) : NaN;
  if (!match || Number.isNaN(millis)) throw new Misfit((path) => new Error(`${path || 'value'}: ${String(json)} is not an RFC 3339 timestamp`));
  return { seconds: millis / 1000, nanos: Number((match[2] ?? '').padEnd(9, '0')) };
}

/** ProtoJSON's default field name (protoc's `json_name`): each `_x` becomes `X`. */
function jsonName(protoName: string): string {
  return protoName.replace(/_(.)/g, (_, next: string) => next.toUpperCase());
}

function invalid(description: string): Misfit {
  return new Misfit((field) => A2aError.invalidParams([{ field, description }]));
}
