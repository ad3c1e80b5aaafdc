import { AGENT_CARD_SCHEMA, type FieldSchema, type MessageSchema } from './card-payload.schema.js';
import { canonicalJson, JCS_MAX_DEPTH } from '../../json/jcs.js';

/**
 * Which projection of the card a signature covers:
 * - `strict`: the spec's (§8.4.1), by proto presence: a field absent (or null) is left out; a set `optional` field and
 *   a REQUIRED one are kept even at their default (`false`, `""`, `[]`); any other field is left out at its default.
 *   Empty messages and map values are kept, `params` is signed as is. That is the spec's example (§8.4.1) exactly.
 * - `sdk`: what @a2a-js/sdk 1.3 signs and verifies (`canonicalizeAgentCard`): its ProtoJSON round trip (unknown fields
 *   and non-optional defaults dropped, values coerced as its `fromJSON` does), then every `""`, `null`, `[]` and `{}`
 *   dropped recursively, `params` included, and containers left empty by that too.
 */
export type CardPayloadCoverage = 'strict' | 'sdk';

/** A card whose payload cannot be computed: a strict field of the wrong type, or input that makes the SDK throw. */
export class CardPayloadError extends Error {
  override readonly name = 'CardPayloadError';
}

type Json = Record<string, unknown>;

/** The RFC 8785 bytes a signature of `coverage` covers, `signatures` excluded; throws CardPayloadError or JcsError. */
export function cardPayload(card: unknown, coverage: CardPayloadCoverage): string {
  if (!isObject(card) || Array.isArray(card)) throw new CardPayloadError('An AgentCard is a JSON object');
  if (coverage === 'strict') return canonicalJson(strictMessage(AGENT_CARD_SCHEMA, card as Json));
  const cleaned = cleanEmpty(sdkMessage(AGENT_CARD_SCHEMA, card), 0);
  return cleaned === undefined ? '{}' : canonicalJson(cleaned);
}

function isSet(value: unknown): boolean {
  return value !== null && value !== undefined;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/** The field under its JSON name, else under its proto name, where `accepts` it: the SDK's order of lookups. */
function read(message: Json, field: FieldSchema, accepts: (value: unknown) => boolean): unknown {
  const value = message[field.name];
  if (accepts(value)) return value;
  const byProtoName = message[field.protoName];
  return accepts(byProtoName) ? byProtoName : undefined;
}

/** Fields in schema order; of a oneof, only the first member set. */
function project(schema: MessageSchema, into: Json, value: (field: FieldSchema) => unknown): Json {
  const chosen = new Set<string>();
  for (const field of schema) {
    if (field.oneof !== undefined && chosen.has(field.oneof)) continue;
    const projected = value(field);
    if (projected === undefined) continue;
    if (field.oneof !== undefined) chosen.add(field.oneof);
    into[field.name] = projected;
  }
  return into;
}

// ---- strict ----

function strictMessage(schema: MessageSchema, message: Json): Json {
  // A null-prototype object takes a `__proto__` map key as an ordinary member.
  return project(schema, Object.create(null) as Json, (field) => strictField(message, field));
}

function strictField(message: Json, field: FieldSchema): unknown {
  const given = read(message, field, isSet);
  if (given === undefined) return undefined;
  const keepDefault = field.presence !== 'implicit';
  if (field.shape === 'repeated') {
    const list = checked(given, Array.isArray(given), field, 'an array') as unknown[];
    return list.length > 0 || keepDefault ? list.map((item) => strictSingle(item, field)) : undefined;
  }
  if (field.shape === 'map') {
    const entries = Object.entries(checked(given, isJsonObject(given), field, 'an object') as Json);
    if (entries.length === 0 && !keepDefault) return undefined;
    const map = Object.create(null) as Json;
    for (const [key, value] of entries) map[key] = strictSingle(value, field);
    return map;
  }
  const value = strictSingle(given, field);
  return keepDefault || (value !== '' && value !== false) ? value : undefined;
}

function strictSingle(value: unknown, field: FieldSchema): unknown {
  switch (field.type) {
    case 'string':
      return checked(value, typeof value === 'string', field, 'a string');
    case 'bool':
      return checked(value, typeof value === 'boolean', field, 'a boolean');
    case 'struct':
      return checked(value, isJsonObject(value), field, 'an object');
    default:
      return strictMessage(field.type, checked(value, isJsonObject(value), field, 'an object') as Json);
  }
}

function isJsonObject(value: unknown): boolean {
  return isObject(value) && !Array.isArray(value);
}

function checked(value: unknown, ok: boolean, field: FieldSchema, what: string): unknown {
  if (!ok) throw new CardPayloadError(`AgentCard field "${field.name}" is not ${what}`);
  return value;
}

// ---- sdk: AgentCard.toJSON(AgentCard.fromJSON(card)) of @a2a-js/sdk 1.3, then cleanEmpty ----

function sdkMessage(schema: MessageSchema, source: unknown): Json {
  // fromJSON reads the fields of whatever it gets: a string or a number has none of them.
  const message = (isObject(source) ? source : {}) as Json;
  return project(schema, {}, (field) => sdkField(message, field));
}

function sdkField(message: Json, field: FieldSchema): unknown {
  if (field.shape === 'repeated') {
    const list = read(message, field, Array.isArray) as unknown[] | undefined;
    return list?.map((item) =>
      field.type === 'string'
        ? String(item)
        : sdkMessage(field.type as MessageSchema, sdkPresent(item, field.type as MessageSchema)),
    );
  }
  if (field.shape === 'map') {
    const source = read(message, field, isObject) as Json | undefined;
    if (source === undefined) return undefined;
    const map: Json = {};
    for (const [key, value] of Object.entries(source)) {
      const projected =
        field.type === 'string'
          ? String(value)
          : sdkMessage(field.type as MessageSchema, sdkPresent(value, field.type as MessageSchema));
      // The SDK assigns entries to a plain object, where this key sets the prototype instead of adding a member.
      if (key !== '__proto__') map[key] = projected;
    }
    return map;
  }
  if (field.type === 'struct') return read(message, field, isObject);
  const value = read(message, field, isSet);
  if (value === undefined) return undefined;
  if (field.type === 'string') return String(value);
  // A non-optional bool is written only when true; an optional one whenever set.
  if (field.type === 'bool') return field.presence === 'optional' || Boolean(value) ? Boolean(value) : undefined;
  return sdkMessage(field.type, value);
}

/** The SDK's fromJSON of a null list item or map value throws, unless it reads only lists (`object?.list`). */
function sdkPresent(value: unknown, schema: MessageSchema): unknown {
  if (!isSet(value) && schema.some((field) => field.shape !== 'repeated'))
    throw new CardPayloadError('An AgentCard list or map holds a null entry');
  return value;
}

/** The SDK's cleanEmpty: drops `""`, `null`, `[]`, `{}` and what becomes one of them; `undefined` for "dropped". */
function cleanEmpty(value: unknown, depth: number): unknown {
  if (value === '' || !isSet(value)) return undefined;
  if (!isObject(value)) return value;
  if (depth >= JCS_MAX_DEPTH) throw new CardPayloadError(`AgentCard nested deeper than ${JCS_MAX_DEPTH} levels`);
  if (Array.isArray(value)) {
    const list = value.map((item) => cleanEmpty(item, depth + 1)).filter((item) => item !== undefined);
    return list.length > 0 ? list : undefined;
  }
  const cleaned: Json = {};
  for (const [key, member] of Object.entries(value)) {
    const kept = cleanEmpty(member, depth + 1);
    // As in the maps above: the SDK's assignment of `__proto__` adds no member.
    if (kept !== undefined && key !== '__proto__') cleaned[key] = kept;
  }
  return Object.keys(cleaned).length > 0 ? cleaned : undefined;
}
