import type { JsonObject, JsonValue } from '../../../protocol/a2a.types.js';
import { setOwn } from '../../../store/data-copy.js';
import type { FieldPlan, MessagePlan } from './message-plan.js';
import { invalid, within } from './misfit.js';
import type { ProtoObject } from './proto-object.js';

// ProtoJSON's Timestamp range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z.
const MIN_SECONDS = -62_135_596_800;
const MAX_SECONDS = 253_402_300_799;

/** A proto-loader message as ProtoJSON, by its plan; throws a Misfit where a value has no ProtoJSON form. */
export function messageToJson(plan: MessagePlan, message: ProtoObject): JsonValue {
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
  if (
    !Number.isInteger(seconds) ||
    seconds < MIN_SECONDS ||
    seconds > MAX_SECONDS ||
    !Number.isInteger(nanos) ||
    nanos < 0 ||
    nanos > 999_999_999
  ) {
    throw invalid('Timestamp out of range (0001-01-01 to 9999-12-31, nanos 0 to 999999999)');
  }
  const iso = new Date(seconds * 1000 + Math.floor(nanos / 1e6)).toISOString();
  if (nanos % 1e6 === 0) return iso;
  const digits = String(nanos).padStart(9, '0');
  return `${iso.slice(0, 19)}.${nanos % 1e3 === 0 ? digits.slice(0, 6) : digits}Z`;
}
