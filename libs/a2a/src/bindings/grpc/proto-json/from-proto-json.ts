import type { JsonObject, JsonValue } from '../../../protocol/a2a.types.js';
import { setOwn } from '../../../store/data-copy.js';
import type { FieldPlan, MessagePlan } from './message-plan.js';
import { Misfit, within } from './misfit.js';
import type { ProtoObject } from './proto-object.js';

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i;

/** ProtoJSON as a message proto-loader can encode, by its plan; throws a Misfit for a malformed timestamp. */
export function messageFromJson(plan: MessagePlan, json: unknown): unknown {
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
  if (!match || Number.isNaN(millis))
    throw new Misfit((path) => new Error(`${path || 'value'}: ${String(json)} is not an RFC 3339 timestamp`));
  return { seconds: millis / 1000, nanos: Number((match[2] ?? '').padEnd(9, '0')) };
}
