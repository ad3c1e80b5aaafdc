import { createFileRegistry, fromBinary, ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { GrpcJsonClient, statusDetailsOf } from '../../fixtures/grpc-json.client.js';

/**
 * Property-based ("fuzz") tests of bad and odd input. fast-check makes up SendMessage, GetTask, ListTasks and
 * CancelTask requests (nested up to 3,000 levels deep, wide, wrongly typed, with odd Unicode, with proto field names),
 * JSON-RPC envelopes, REST query strings and raw gRPC frames, and sends each to the conformance agent over JSON-RPC,
 * HTTP+JSON and gRPC through real sockets. Whatever comes in, the agent must:
 *  - answer, in time, and still answer a plain SendMessage afterwards;
 *  - never answer HTTP 5xx, JSON-RPC -32603 or gRPC INTERNAL/UNKNOWN, nor leak a stack trace or a file path;
 *  - answer errors in its binding's shape: the JSON-RPC error envelope with `data` details, google.rpc.Status as JSON
 *    for HTTP+JSON, a gRPC status with `grpc-status-details-bin`;
 *  - reject what is invalid with the invalid-params error (spec §5.7; §6.5's example: out-of-range pageSize,
 *    negative historyLength, unknown enum names), and accept proto field names (`message_id`, `history_length`…)
 *    besides camelCase ones, since ProtoJSON parsers accept both, and ignore unknown fields (spec §5.7);
 *  - keep every task it accepted readable with GetTask on all three bindings (STYLE.md #11).
 * This is the repo's issue "every bad input answered in the protocol's shape", checked by generation, not by examples.
 * A failure prints fast-check's seed, path and shrunk counterexample; pass `{ seed, path }` to `fc.assert` to replay it.
 * Only `echo …` texts and data-only messages are generated: the skill's other commands would slow or stream.
 */

/** Far above what any of these requests takes on loopback (milliseconds); past it, a request counts as a hang. */
const REQUEST_TIMEOUT_MS = 3_000;
/**
 * Per property, shrinking included. With the run counts below a passing property takes about a second, so reaching
 * the limit counts as a failure: fast-check's interruption ignores the run it cuts short, which could hide a hang.
 */
const PROPERTY_TIME_LIMIT_MS = 8_000;
/** The property, then the three still-serving calls, each of which may take REQUEST_TIMEOUT_MS before failing. */
const TEST_TIMEOUT_MS = PROPERTY_TIME_LIMIT_MS + 4 * REQUEST_TIMEOUT_MS;
/** The app's JSON body limit is 100 kB; generated bodies stay below it, so what is tested is the content, not the size. */
const MAX_BODY_BYTES = 90_000;
/** Node itself answers 431, before any app code runs, past 16 KiB of request head: REST URLs stay below that. */
const MAX_URL_BYTES = 8_000;
/** messageIds with which the conformance skill holds a task open for seconds (conformance.skill.ts). */
const HOLD_PREFIXES = ['test-resubscribe-message-id', 'test-subscribe-message-id'];
/** What a stack trace or a server path looks like in an answer. Generated strings never match these. */
const LEAKS = [
  /\bat \S+ \(/,
  /\/work\//,
  new RegExp(process.cwd().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
  /node_modules/,
  /\.(?:ts|js):\d+/,
  /file:\/\//,
];
const leakFree = (text: string) => !LEAKS.some((leak) => leak.test(text));

// ---------------------------------------------------------------------------------------------------------------------
// Generated values. Some are too deep for JSON.stringify (and for fast-check's printer) or too long to print, so they
// are markers written out only when sent, and printed short in counterexamples.

type Val = null | boolean | number | string | Built | Val[] | { [key: string]: Val };
type Obj = { [key: string]: Val };

abstract class Built {
  abstract json(): string;
  /** As a google.protobuf.Value on the wire. */
  abstract protoValue(): Buffer;
  abstract [fc.toStringMethod](): string;
}

/** `depth` nested arrays, objects (`{"k": …}`) or both alternating, around `leaf`; built iteratively. */
class Deep extends Built {
  constructor(
    readonly depth: number,
    readonly shape: 'array' | 'object' | 'mixed',
    readonly leaf: Val,
  ) {
    super();
  }

  private objectAt(level: number): boolean {
    return this.shape === 'object' || (this.shape === 'mixed' && level % 2 === 1);
  }

  json(): string {
    const open: string[] = [];
    const close: string[] = [];
    for (let level = 0; level < this.depth; level++) {
      open.push(this.objectAt(level) ? '{"k":' : '[');
      close.push(this.objectAt(level) ? '}' : ']');
    }
    return open.join('') + jsonText(this.leaf) + close.reverse().join('');
  }

  protoValue(): Buffer {
    const leaf = protoValue(this.leaf);
    const headers: Buffer[] = [];
    let size = leaf.length;
    for (let level = this.depth - 1; level >= 0; level--) {
      const header = this.objectAt(level) ? structHeader(size) : listHeader(size);
      headers.push(header);
      size += header.length;
    }
    return Buffer.concat([...headers.reverse(), leaf]);
  }

  [fc.toStringMethod](): string {
    return `Deep(${this.depth} × ${this.shape}, ${jsonText(this.leaf)})`;
  }
}

/** `prefix` then `count` times `unit`. */
class LongString extends Built {
  constructor(
    readonly unit: string,
    readonly count: number,
    readonly prefix = '',
  ) {
    super();
  }

  text(): string {
    return this.prefix + this.unit.repeat(this.count);
  }

  json(): string {
    return JSON.stringify(this.text());
  }

  protoValue(): Buffer {
    return protoValue(this.text());
  }

  [fc.toStringMethod](): string {
    return `LongString(${JSON.stringify(this.prefix)} + ${JSON.stringify(this.unit)} × ${this.count})`;
  }
}

class LongArray extends Built {
  constructor(
    readonly count: number,
    readonly element: Val,
  ) {
    super();
  }

  items(): Val[] {
    return Array.from({ length: this.count }, () => this.element);
  }

  json(): string {
    return jsonText(this.items());
  }

  protoValue(): Buffer {
    return protoValue(this.items());
  }

  [fc.toStringMethod](): string {
    return `LongArray(${jsonText(this.element)} × ${this.count})`;
  }
}

/** An object with keys `key0`…`key{count-1}`, all set to `value`. */
class ManyKeys extends Built {
  constructor(
    readonly count: number,
    readonly value: Val,
  ) {
    super();
  }

  entries(): Obj {
    return Object.fromEntries(Array.from({ length: this.count }, (_, i) => [`key${i}`, this.value]));
  }

  json(): string {
    return jsonText(this.entries());
  }

  protoValue(): Buffer {
    return protoValue(this.entries());
  }

  [fc.toStringMethod](): string {
    return `ManyKeys(${this.count} × ${jsonText(this.value)})`;
  }
}

/** A JSON number written as is, e.g. `1e400` or `1.0`, which a JS number would not keep. */
class NumberText extends Built {
  constructor(readonly literal: string) {
    super();
  }

  json(): string {
    return this.literal;
  }

  protoValue(): Buffer {
    return new ProtoWriter().double(2, Number(this.literal)).finish();
  }

  [fc.toStringMethod](): string {
    return `NumberText(${this.literal})`;
  }
}

/** The value with long strings, arrays and objects spelled out; deep values and number literals stay markers. */
function expand(value: Val): Val {
  if (value instanceof LongString) return value.text();
  if (value instanceof LongArray) return value.items();
  if (value instanceof ManyKeys) return value.entries();
  return value;
}

const isObject = (value: unknown): value is { [key: string]: unknown } =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isPlainObject = (value: Val): value is Obj => isObject(value) && !(value instanceof Built);

/** JSON text by concatenation: JSON.stringify overflows the stack a few thousand levels down. */
function jsonText(value: Val): string {
  if (value instanceof Built) return value.json();
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${jsonText(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** How a value goes into a URL path segment or a query parameter. */
function asText(value: Val | undefined): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (value instanceof LongString) return value.text();
  if (value instanceof NumberText) return value.literal;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return jsonText(value);
}

/** UTF-8, except that a lone surrogate becomes its 3-byte (invalid UTF-8) form, as WTF-8 does: odd input for gRPC. */
function wtf8(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
      i++;
    }
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 63));
    else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
    else bytes.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 63), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
  }
  return Buffer.from(bytes);
}

/** Percent-encodes everything but unreserved ASCII letters and digits; lone surrogates as their invalid UTF-8 bytes. */
function percentEncode(text: string): string {
  return [...wtf8(text)]
    .map((byte) =>
      /[A-Za-z0-9_~-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

// ---------------------------------------------------------------------------------------------------------------------
// The protobuf wire format, written by hand so that any generated value can be sent over gRPC: a value of the right
// JSON type is encoded as ProtoJSON says; a wrong one with the wire type of its own JSON type (a number in a string
// field becomes a varint), which a server must refuse as malformed, never crash on.

const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync('proto/a2a.binpb')));
const requestType = (operation: Operation): DescMessage => registry.getMessage(`lf.a2a.v1.${operation}Request`)!;
const WIRE = { varint: 0, i64: 1, len: 2 } as const;

class ProtoWriter {
  private readonly chunks: Buffer[] = [];

  varint(value: number | bigint): this {
    let rest = BigInt.asUintN(64, BigInt(value));
    const bytes: number[] = [];
    do {
      const low = Number(rest & 0x7fn);
      rest >>= 7n;
      bytes.push(rest ? low | 0x80 : low);
    } while (rest);
    this.chunks.push(Buffer.from(bytes));
    return this;
  }

  tag(field: number, wireType: number): this {
    return this.varint((BigInt(field) << 3n) | BigInt(wireType));
  }

  len(field: number, bytes: Uint8Array): this {
    this.tag(field, WIRE.len).varint(bytes.length);
    this.chunks.push(Buffer.from(bytes));
    return this;
  }

  double(field: number, value: number): this {
    const bytes = Buffer.alloc(8);
    bytes.writeDoubleLE(value);
    this.tag(field, WIRE.i64);
    this.chunks.push(bytes);
    return this;
  }

  finish(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** The bytes before a google.protobuf.Value of `size` bytes that put it into a Struct `{"k": …}`, itself a Value. */
function structHeader(size: number): Buffer {
  const entry = new ProtoWriter().len(1, Buffer.from('k')).tag(2, WIRE.len).varint(size).finish();
  const struct = new ProtoWriter()
    .tag(1, WIRE.len)
    .varint(entry.length + size)
    .finish();
  return Buffer.concat([
    new ProtoWriter()
      .tag(5, WIRE.len)
      .varint(struct.length + entry.length + size)
      .finish(),
    struct,
    entry,
  ]);
}

/** The bytes before a google.protobuf.Value of `size` bytes that put it into a one-element ListValue, itself a Value. */
function listHeader(size: number): Buffer {
  const list = new ProtoWriter().tag(1, WIRE.len).varint(size).finish();
  return Buffer.concat([
    new ProtoWriter()
      .tag(6, WIRE.len)
      .varint(list.length + size)
      .finish(),
    list,
  ]);
}

function protoValue(value: Val): Buffer {
  const expanded = expand(value);
  if (expanded instanceof Built) return expanded.protoValue();
  const writer = new ProtoWriter();
  if (expanded === null) return writer.tag(1, WIRE.varint).varint(0).finish();
  if (typeof expanded === 'number') return writer.double(2, expanded).finish();
  if (typeof expanded === 'string') return writer.len(3, wtf8(expanded)).finish();
  if (typeof expanded === 'boolean')
    return writer
      .tag(4, WIRE.varint)
      .varint(expanded ? 1 : 0)
      .finish();
  if (Array.isArray(expanded)) {
    const list = new ProtoWriter();
    for (const item of expanded) list.len(1, protoValue(item));
    return writer.len(6, list.finish()).finish();
  }
  return writer.len(5, protoStruct(expanded)).finish();
}

function protoStruct(object: Obj): Buffer {
  const struct = new ProtoWriter();
  for (const [key, item] of Object.entries(object))
    struct.len(1, new ProtoWriter().len(1, wtf8(key)).len(2, protoValue(item)).finish());
  return struct.finish();
}

/** A request message on the wire; keys are matched by JSON or proto name, unknown ones go to unused field numbers. */
function protoMessage(type: DescMessage, object: Obj): Buffer {
  const writer = new ProtoWriter();
  let unknownField = 1000;
  for (const [key, value] of Object.entries(object)) {
    const field = type.fields.find((f) => f.jsonName === key || f.name === key);
    if (field) protoField(writer, field, value);
    else writer.len(unknownField++, protoValue(value));
  }
  return writer.finish();
}

function protoField(writer: ProtoWriter, field: DescField, value: Val): void {
  const expanded = expand(value);
  // ProtoJSON's null means "unset", except for google.protobuf.Value, where it is NULL_VALUE.
  if (expanded === null) {
    if (field.message?.typeName === 'google.protobuf.Value') writer.len(field.number, protoValue(null));
    return;
  }
  if (field.fieldKind === 'list') {
    if (Array.isArray(expanded)) for (const item of expanded) protoElement(writer, field, expand(item));
    else protoLoose(writer, field.number, expanded);
    return;
  }
  if (field.fieldKind === 'map') return protoLoose(writer, field.number, expanded);
  protoElement(writer, field, expanded);
}

function protoElement(writer: ProtoWriter, field: DescField, value: Val): void {
  const kind = field.fieldKind === 'list' ? field.listKind : field.fieldKind;
  if (kind === 'enum') {
    const known = typeof value === 'string' ? field.enum!.values.find((v) => v.name === value) : undefined;
    if (known) writer.tag(field.number, WIRE.varint).varint(known.number);
    else if (typeof value === 'number' && Number.isInteger(value))
      writer.tag(field.number, WIRE.varint).varint(BigInt(value));
    else protoLoose(writer, field.number, value);
    return;
  }
  if (kind === 'message') {
    const type = field.message!;
    if (type.typeName === 'google.protobuf.Value') writer.len(field.number, protoValue(value));
    else if (
      type.typeName === 'google.protobuf.Timestamp' &&
      typeof value === 'string' &&
      !Number.isNaN(Date.parse(value))
    ) {
      const ms = Date.parse(value);
      writer.len(
        field.number,
        new ProtoWriter()
          .tag(1, WIRE.varint)
          .varint(Math.floor(ms / 1000))
          .tag(2, WIRE.varint)
          .varint((((ms % 1000) + 1000) % 1000) * 1e6)
          .finish(),
      );
    } else if (!isPlainObject(value)) protoLoose(writer, field.number, value);
    else if (type.typeName === 'google.protobuf.Struct') writer.len(field.number, protoStruct(value));
    else writer.len(field.number, protoMessage(type, value));
    return;
  }
  if (kind === 'map') return protoLoose(writer, field.number, value);
  switch (field.scalar) {
    case ScalarType.STRING:
      if (typeof value === 'string') return void writer.len(field.number, wtf8(value));
      break;
    case ScalarType.BYTES:
      if (typeof value === 'string') return void writer.len(field.number, Buffer.from(value, 'base64'));
      break;
    case ScalarType.BOOL:
      if (typeof value === 'boolean') return void writer.tag(field.number, WIRE.varint).varint(value ? 1 : 0);
      break;
    case ScalarType.INT32:
    case ScalarType.INT64: {
      // ProtoJSON takes integers as numbers or decimal strings; what does not fit is sent as is, truncated on decoding.
      const integer = integerOf(value);
      if (integer !== undefined) return void writer.tag(field.number, WIRE.varint).varint(integer);
      break;
    }
  }
  protoLoose(writer, field.number, value);
}

function integerOf(value: Val): bigint | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  const text = typeof value === 'string' ? value : value instanceof NumberText ? value.literal : undefined;
  return text !== undefined && /^-?\d{1,30}$/.test(text) ? BigInt(text) : undefined;
}

/** How many values were written with a wire type their field does not have; see GrpcBinding.call. */
let looseWrites = 0;

/** A value of the wrong type for its field, written with the wire type of its own JSON type. */
function protoLoose(writer: ProtoWriter, field: number, value: Val): void {
  looseWrites++;
  const expanded = expand(value);
  const integer = integerOf(expanded);
  if (expanded === null) return;
  if (typeof expanded === 'string') writer.len(field, wtf8(expanded));
  else if (typeof expanded === 'boolean') writer.tag(field, WIRE.varint).varint(expanded ? 1 : 0);
  else if (integer !== undefined) writer.tag(field, WIRE.varint).varint(integer);
  else if (typeof expanded === 'number') writer.double(field, expanded);
  else if (expanded instanceof NumberText) writer.double(field, Number(expanded.literal));
  else if (Array.isArray(expanded)) for (const item of expanded) protoLoose(writer, field, item);
  else writer.len(field, protoValue(expanded));
}

interface WireField {
  field: number;
  wireType: number;
  bytes?: Buffer;
}

/** The top-level fields of a message, without descending into any: nothing here recurses over server output. */
function wireFields(bytes: Buffer): WireField[] {
  const fields: WireField[] = [];
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= bytes.length || shift > 63n) throw new Error('truncated varint');
      const byte = bytes[at++];
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const tag = varint();
    const wireType = Number(tag & 7n);
    const field = Number(tag >> 3n);
    if (wireType === WIRE.varint) varint();
    else if (wireType === WIRE.i64) at += 8;
    else if (wireType === 5) at += 4;
    else if (wireType === WIRE.len) {
      const length = Number(varint());
      fields.push({ field, wireType, bytes: bytes.subarray(at, at + length) });
      at += length;
    } else throw new Error(`wire type ${wireType}`);
    if (at > bytes.length) throw new Error('truncated field');
  }
  return fields;
}

const lenFields = (bytes: Buffer, field: number): Buffer[] =>
  wireFields(bytes).flatMap((f) => (f.field === field && f.bytes ? [f.bytes] : []));
const taskIdOnWire = (task: Buffer): string | undefined => lenFields(task, 1)[0]?.toString('utf8');

/** Ids of the tasks in a successful gRPC answer: SendMessageResponse.task (1), a Task, ListTasksResponse.tasks (1). */
function grpcTaskIds(operation: Operation, response: Buffer): string[] {
  const tasks = operation === 'GetTask' || operation === 'CancelTask' ? [response] : lenFields(response, 1);
  return tasks.flatMap((task) => taskIdOnWire(task) ?? []);
}

// ---------------------------------------------------------------------------------------------------------------------
// The three bindings, each checking the shape of what it is answered before anything else looks at it.

type Operation = 'SendMessage' | 'GetTask' | 'ListTasks' | 'CancelTask';
type BindingName = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

interface Answer {
  ok: boolean;
  /** Ids of the tasks a successful answer carries. */
  taskIds: string[];
  /** The successful answer as JSON (JSON-RPC `result`, the HTTP+JSON body); undefined for gRPC. */
  body?: { [key: string]: unknown };
  /** The protocol's invalid-params error: JSON-RPC -32602, HTTP 400 INVALID_ARGUMENT, gRPC INVALID_ARGUMENT. */
  invalidParams: boolean;
  /**
   * For a gRPC request whose meaning the server may read differently (raw bytes, mismatched wire types, which a decoder
   * may read out of step): the tenants its tasks may be in besides the request's own, i.e. the default one and the
   * top-level `tenant` (field 1) of the bytes.
   */
  otherTenants?: string[];
  /** What came back, shortened, for failure messages. */
  excerpt: string;
}

interface Binding {
  readonly name: BindingName;
  call(operation: Operation, request: Obj): Promise<Answer>;
}

interface HttpExchange {
  label: string;
  status: number;
  contentType: string;
  text: string;
}

const excerpt = (text: string) => (text.length > 600 ? `${text.slice(0, 600)}… (${text.length} chars)` : text);

/** Alternates the two JSON media types, deterministically so that a replay sends the same. */
const contentTypeFor = (body: string) => (body.length % 2 === 0 ? 'application/json' : 'application/a2a+json');

async function exchange(label: string, method: 'GET' | 'POST', url: string, body?: string): Promise<HttpExchange> {
  try {
    const response = await fetch(url, {
      method,
      headers: { 'A2A-Version': '1.0', ...(body === undefined ? {} : { 'Content-Type': contentTypeFor(body) }) },
      body,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    return {
      label,
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      text: await response.text(),
    };
  } catch (error) {
    throw new Error(
      `${label}: no answer (connection lost, or none within ${REQUEST_TIMEOUT_MS} ms): ${String((error as Error).cause ?? error)}`,
      { cause: error },
    );
  }
}

/** No 5xx, no leak, JSON; the parsed body. */
function servedJson(res: HttpExchange): unknown {
  if (res.status >= 500) throw new Error(`${res.label}: HTTP ${res.status}: ${excerpt(res.text)}`);
  if (!leakFree(res.text))
    throw new Error(`${res.label}: the answer leaks a stack trace or a path: ${excerpt(res.text)}`);
  if (!/^application\/(a2a\+)?json/.test(res.contentType))
    throw new Error(
      `${res.label}: HTTP ${res.status} as ${res.contentType || 'no content type'}: ${excerpt(res.text)}`,
    );
  try {
    return JSON.parse(res.text);
  } catch {
    throw new Error(`${res.label}: HTTP ${res.status} with a body that is not JSON: ${excerpt(res.text)}`);
  }
}

const isDetailList = (details: unknown) =>
  Array.isArray(details) && details.every((d) => isObject(d) && typeof d['@type'] === 'string');

function taskIdsOf(result: unknown): string[] {
  if (!isObject(result)) return [];
  if (isObject(result.task) && typeof result.task.id === 'string') return [result.task.id];
  if (Array.isArray(result.tasks))
    return result.tasks.flatMap((t) => (isObject(t) && typeof t.id === 'string' ? [t.id] : []));
  if (typeof result.id === 'string' && isObject(result.status)) return [result.id];
  return [];
}

const NOTIFICATION = Symbol('no id');

/**
 * The id a JSON-RPC body carries, as the server may read it: NOTIFICATION if it has none, null if unreadable. A leading
 * byte order mark may be ignored (RFC 8259 §8.1); a server that refuses it answers -32700, where id null is right anyway.
 */
function sentIdOf(body: string): unknown {
  try {
    const parsed: unknown = JSON.parse(body.replace(/^\uFEFF/, ''));
    return isObject(parsed) ? ('id' in parsed ? parsed.id : NOTIFICATION) : null;
  } catch {
    return null;
  }
}

/**
 * A JSON-RPC answer: `{jsonrpc: "2.0", id, result}` or `{jsonrpc: "2.0", id, error: {code, message, data: [Any…]}}`,
 * never -32603. `id` is the request's when it had a valid one (string or number), null otherwise or when the request
 * could not be read as one (-32700, -32600). A notification (no id) may get an empty 2xx, or an answer with id null.
 */
function jsonRpcAnswer(res: HttpExchange, sentId: unknown): Answer {
  if (sentId === NOTIFICATION && res.status >= 200 && res.status < 300 && res.text === '')
    return { ok: true, taskIds: [], invalidParams: false, excerpt: '(no body)' };
  const body = servedJson(res);
  const fail = (why: string) => new Error(`${res.label}: ${why}: HTTP ${res.status} ${excerpt(res.text)}`);
  if (!isObject(body) || body.jsonrpc !== '2.0') throw fail('not a JSON-RPC 2.0 response');
  const validId = typeof sentId === 'string' || typeof sentId === 'number';
  if ('error' in body) {
    const error = body.error;
    if (Object.keys(body).sort().join() !== 'error,id,jsonrpc')
      throw fail('an error envelope has other members than jsonrpc, id, error');
    if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string' || error.message === '')
      throw fail('error without an integer code and a message');
    if (error.code === -32603) throw fail('-32603 internal error for a bad request');
    if (!isDetailList(error.data)) throw fail('error.data is not a list of details with @type');
    const unreadable = error.code === -32700 || error.code === -32600;
    if (validId ? body.id !== sentId && !(unreadable && body.id === null) : body.id !== null)
      throw fail(`id ${JSON.stringify(body.id)} for a request with id ${String(sentId)}`);
    return { ok: false, taskIds: [], invalidParams: error.code === -32602, excerpt: excerpt(res.text) };
  }
  if (Object.keys(body).sort().join() !== 'id,jsonrpc,result') throw fail('neither a result nor an error envelope');
  if (validId ? body.id !== sentId : sentId !== NOTIFICATION || body.id !== null)
    throw fail(`a result with id ${JSON.stringify(body.id)} for a request with id ${String(sentId)}`);
  return {
    ok: true,
    taskIds: taskIdsOf(body.result),
    body: isObject(body.result) ? body.result : undefined,
    invalidParams: false,
    excerpt: excerpt(res.text),
  };
}

const GRPC_CODE_NAMES = Object.keys(grpc.status).filter((name) => Number.isNaN(Number(name)));

/** An HTTP+JSON answer: 2xx with a JSON object, or `{"error": {code, status, message, details}}` (google.rpc.Status). */
function restAnswer(res: HttpExchange): Answer {
  const body = servedJson(res);
  const fail = (why: string) => new Error(`${res.label}: ${why}: HTTP ${res.status} ${excerpt(res.text)}`);
  if (res.status >= 400) {
    const error = isObject(body) ? body.error : undefined;
    if (!isObject(body) || Object.keys(body).join() !== 'error' || !isObject(error))
      throw fail('not a google.rpc.Status error');
    if (Object.keys(error).sort().join() !== 'code,details,message,status')
      throw fail('the error has other members than code, status, message, details');
    if (error.code !== res.status) throw fail(`error.code ${String(error.code)} is not the HTTP status`);
    if (typeof error.status !== 'string' || !GRPC_CODE_NAMES.includes(error.status))
      throw fail('error.status is not a google.rpc.Code name');
    if (typeof error.message !== 'string' || error.message === '') throw fail('error without a message');
    if (!isDetailList(error.details)) throw fail('error.details is not a list of details with @type');
    return {
      ok: false,
      taskIds: [],
      invalidParams: res.status === 400 && error.status === 'INVALID_ARGUMENT',
      excerpt: excerpt(res.text),
    };
  }
  if (res.status < 200 || res.status >= 300 || !isObject(body))
    throw fail('neither a success with a JSON object nor an error');
  return { ok: true, taskIds: taskIdsOf(body), body, invalidParams: false, excerpt: excerpt(res.text) };
}

class JsonRpcBinding implements Binding {
  readonly name = 'JSONRPC';
  private nextId = 0;

  constructor(private readonly url: string) {}

  call(operation: Operation, request: Obj): Promise<Answer> {
    return this.send(
      `{"jsonrpc":"2.0","id":${++this.nextId},"method":"${operation}","params":${jsonText(request)}}`,
      operation,
    );
  }

  /** Any body; what it is checked against depends on what the server can read of it. */
  async send(body: string, label: string): Promise<Answer> {
    return jsonRpcAnswer(await exchange(`JSONRPC ${label}`, 'POST', this.url, body), sentIdOf(body));
  }
}

class RestBinding implements Binding {
  readonly name = 'HTTP+JSON';

  constructor(private readonly url: string) {}

  call(operation: Operation, request: Obj): Promise<Answer> {
    const { tenant, id, ...fields } = request;
    const prefix = asText(tenant) === '' ? '' : `/${percentEncode(asText(tenant))}`;
    const taskPath = `${prefix}/tasks/${percentEncode(asText(id))}`;
    switch (operation) {
      case 'SendMessage':
        return this.send('POST', '/message:send', jsonText(request));
      case 'GetTask':
        return this.send('GET', `${taskPath}${queryOf(fields)}`);
      case 'ListTasks':
        return this.send('GET', `${prefix}/tasks${queryOf(id === undefined ? fields : { id, ...fields })}`);
      case 'CancelTask':
        // An empty id makes `/tasks/:cancel`, which is not an A2A route at all.
        fc.pre(asText(id) !== '');
        return this.send('POST', `${taskPath}:cancel`, jsonText(fields));
    }
  }

  async send(method: 'GET' | 'POST', path: string, body?: string): Promise<Answer> {
    fc.pre(Buffer.byteLength(this.url + path) <= MAX_URL_BYTES);
    return restAnswer(
      await exchange(
        `HTTP+JSON ${method} ${path.length > 120 ? `${path.slice(0, 120)}…` : path}`,
        method,
        this.url + path,
        body,
      ),
    );
  }
}

/** Query parameters as §11.5 has them: decimal numbers, true/false, repeated for lists; anything else as its JSON. */
function queryOf(fields: Obj): string {
  const pairs = Object.entries(fields).flatMap(([key, value]) => {
    const expanded = expand(value);
    return (Array.isArray(expanded) ? expanded : [value]).map(
      (item) => `${percentEncode(key)}=${percentEncode(asText(item))}`,
    );
  });
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

const NO_ANSWER = [grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED, grpc.status.CANCELLED];

class GrpcBinding implements Binding {
  readonly name = 'GRPC';
  private client: GrpcJsonClient;

  constructor(private readonly address: string) {
    this.client = new GrpcJsonClient(address);
  }

  /** A new connection, so that one property's broken connection does not fail the next ones. */
  reconnect(): void {
    this.client.close();
    this.client = new GrpcJsonClient(this.address);
  }

  close(): void {
    this.client.close();
  }

  async call(operation: Operation, request: Obj): Promise<Answer> {
    const before = looseWrites;
    const bytes = protoMessage(requestType(operation), request);
    const answer = await this.send(operation, bytes);
    return looseWrites === before ? { ...answer, otherTenants: undefined } : answer;
  }

  /** Any bytes as the request of `operation`. A call that got no answer leaves a new connection for the next ones. */
  async send(operation: Operation, bytes: Buffer): Promise<Answer> {
    const answer = await this.exchange(operation, bytes);
    if (!answer.ok) return answer;
    let tenant: string[] = [];
    try {
      tenant = lenFields(bytes, 1)
        .slice(-1)
        .map((t) => t.toString('utf8'));
    } catch {
      // Not protobuf at the top level: the server read something else, with the default tenant at least.
    }
    return { ...answer, otherTenants: ['', ...tenant] };
  }

  private exchange(operation: Operation, bytes: Buffer): Promise<Answer> {
    const label = `GRPC ${operation}`;
    const metadata = new grpc.Metadata();
    metadata.set('a2a-version', '1.0');
    const client = this.client;
    return new Promise((resolve, reject) =>
      client.client.makeUnaryRequest(
        `/lf.a2a.v1.A2AService/${operation}`,
        (request: Buffer) => request,
        (response: Buffer) => response,
        bytes,
        metadata,
        { deadline: Date.now() + REQUEST_TIMEOUT_MS },
        (error, response) => {
          try {
            if (error && NO_ANSWER.includes(error.code) && client === this.client) this.reconnect();
            resolve(error ? grpcError(label, error) : grpcSuccess(label, operation, response!));
          } catch (failure) {
            reject(failure);
          }
        },
      ),
    );
  }
}

/** A gRPC error: answered, neither INTERNAL nor UNKNOWN, with a google.rpc.Status in `grpc-status-details-bin`. */
function grpcError(label: string, error: grpc.ServiceError): Answer {
  const said = `${grpc.status[error.code]}: ${excerpt(error.details)}`;
  if (NO_ANSWER.includes(error.code)) throw new Error(`${label}: no answer (${said})`);
  if (error.code === grpc.status.INTERNAL || error.code === grpc.status.UNKNOWN) throw new Error(`${label}: ${said}`);
  if (!leakFree(error.details)) throw new Error(`${label}: the status message leaks a stack trace or a path: ${said}`);
  let status: ReturnType<typeof statusDetailsOf>;
  try {
    status = statusDetailsOf(error);
  } catch (decoding) {
    throw new Error(`${label}: grpc-status-details-bin is not a google.rpc.Status (${String(decoding)}); ${said}`, {
      cause: decoding,
    });
  }
  if (!status) throw new Error(`${label}: no grpc-status-details-bin; ${said}`);
  if (status.code !== error.code || typeof status.message !== 'string')
    throw new Error(`${label}: status details ${JSON.stringify(status)} do not match ${said}`);
  if (!leakFree(JSON.stringify(status)))
    throw new Error(`${label}: the status details leak a stack trace or a path: ${JSON.stringify(status)}`);
  return { ok: false, taskIds: [], invalidParams: error.code === grpc.status.INVALID_ARGUMENT, excerpt: said };
}

function grpcSuccess(label: string, operation: Operation, response: Buffer): Answer {
  try {
    return {
      ok: true,
      taskIds: grpcTaskIds(operation, response),
      invalidParams: false,
      excerpt: `OK, ${response.length} bytes`,
    };
  } catch (malformed) {
    throw new Error(`${label}: the response is not protobuf (${String(malformed)})`, { cause: malformed });
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// What every answer must satisfy beyond its shape.

let agent: RunningAgent;
let jsonRpc: JsonRpcBinding;
let rest: RestBinding;
let grpcBinding: GrpcBinding;
let bindings: Binding[];

/**
 * Every task id a successful answer carries reads back with GetTask on all three bindings, in the request's tenant (or
 * in one of the tenants a gRPC request of uncertain meaning may have named, see Answer.otherTenants).
 */
async function expectReadableEverywhere(answer: Answer, tenant: Val | undefined): Promise<void> {
  const tenants = [...new Set([typeof tenant === 'string' ? tenant : '', ...(answer.otherTenants ?? [])])];
  for (const id of answer.taskIds.slice(0, 3)) {
    const failures: Error[] = [];
    for (const candidate of tenants) {
      const failure = await readEverywhere(id, candidate).then(
        () => undefined,
        (error: Error) => error,
      );
      if (!failure) break;
      failures.push(failure);
    }
    if (failures.length === tenants.length) throw failures[0];
  }
}

async function readEverywhere(id: string, tenant: string): Promise<void> {
  for (const binding of bindings) {
    const read = await binding.call('GetTask', tenant === '' ? { id } : { id, tenant }).catch((error: Error) => {
      throw new Error(`task ${id}, accepted, then GetTask over ${binding.name}: ${error.message}`);
    });
    if (!read.ok || read.taskIds[0] !== id)
      throw new Error(`task ${id}, accepted, is not readable over ${binding.name}: ${read.excerpt}`);
  }
}

async function expectStillServing(): Promise<void> {
  for (const binding of bindings) {
    const answer = await binding.call('SendMessage', {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'echo still here' }] },
    });
    if (!answer.ok || answer.taskIds.length !== 1)
      throw new Error(`${binding.name} no longer answers a plain SendMessage: ${answer.excerpt}`);
  }
}

/**
 * Runs a property, bounded in runs and time, then checks the agent still serves, on a new gRPC connection (a broken
 * connection fails the request that broke it); reports both failures if both fail.
 */
async function check<T>(
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  numRuns: number,
): Promise<void> {
  const failure = await fc
    .assert(fc.asyncProperty(arbitrary, predicate), {
      numRuns,
      plugins: [fc.interruptAfterTimeLimit(PROPERTY_TIME_LIMIT_MS, { failOnInterrupt: true })],
    })
    .then(
      () => undefined,
      (error: Error) => error,
    );
  grpcBinding.reconnect();
  const stopped = await expectStillServing().then(
    () => undefined,
    (error: Error) => error,
  );
  if (failure && stopped)
    throw new Error(
      `${failure.message}\nCause: ${String((failure.cause as Error | undefined)?.message)}\n\nAfterwards: ${stopped.message}`,
    );
  if (failure ?? stopped) throw failure ?? stopped;
}

/** The shared properties of one request: well-formed answer (checked by the binding), accepted tasks readable. */
async function expectWellBehaved(binding: Binding, operation: Operation, request: Obj): Promise<Answer> {
  const answer = await binding.call(operation, request);
  if (answer.ok) await expectReadableEverywhere(answer, request.tenant);
  return answer;
}

async function expectInvalidParams(binding: Binding, operation: Operation, request: Obj): Promise<void> {
  const answer = await binding.call(operation, request);
  if (!answer.invalidParams) {
    throw new Error(
      `${binding.name} ${operation}: ${answer.ok ? 'accepted' : 'answered'} an invalid request, not with the invalid-params error: ${answer.excerpt}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Generators.

const ODD_PIECES = [
  '\u0000',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\u200e',
  '\u200f',
  '\u202e',
  '\u2066',
  '\u2069',
  '\ufeff',
  '\ufffd',
  '\uffff',
  '\u0085',
  '\u2028',
  '\u2029',
  '😀',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  'e\u0301',
  '𝕏',
  'ﷺ',
  'ß',
  'İ',
  '"',
  '\\',
  '\n',
  '\r\n',
  '\t',
  '%',
  '%00',
  '%zz',
  '+',
  '&',
  '=',
  '?',
  '#',
  '/',
  ':',
  ' ',
  '\u00a0',
  '<script>',
  '${x}',
  "'",
  'null',
];

function oddString(maxPieces = 12): fc.Arbitrary<string> {
  const piece = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ODD_PIECES) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
  );
  return fc
    .array(piece, { maxLength: maxPieces })
    .map((pieces) => pieces.join(''))
    .filter(leakFree);
}

const jsonBytes = (text: string) => Buffer.byteLength(JSON.stringify(text)) - 2;

/** Up to ~40 kB of JSON text of one repeated unit. */
const longString = (prefix = '', minCount = 1) =>
  fc
    .constantFrom('x', 'é', '😀', '\ud800', '\u0000', '\u202e', 'ab ')
    .chain((unit) =>
      fc
        .integer({ min: minCount, max: Math.floor(40_000 / jsonBytes(unit)) })
        .map((count) => new LongString(unit, count, prefix)),
    );

/** An id: odd Unicode, a UUID, or 1,000 to 20,000 characters. Never a held messageId, never a `.`/`..` path segment. */
const oddId: fc.Arbitrary<Val> = fc.oneof(
  {
    weight: 4,
    arbitrary: oddString(16).filter((s) => s !== '.' && s !== '..' && !HOLD_PREFIXES.some((p) => s.startsWith(p))),
  },
  { weight: 1, arbitrary: fc.uuid() },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('i', '😀', '\ud800', 'é')
      .chain((unit) => fc.integer({ min: 1_000, max: 20_000 }).map((count) => new LongString(unit, count))),
  },
);

const smallJson = fc.jsonValue({ maxDepth: 3 }).filter((value) => leakFree(JSON.stringify(value))) as fc.Arbitrary<Val>;
const smallObject = fc.dictionary(oddString(4), smallJson, { maxKeys: 6 }) as fc.Arbitrary<Obj>;
const oddKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', '', '$ref', '@type', 'a.b', 'k'.repeat(300)),
  oddString(4),
);

/** An `echo` text: the skill completes at once, whatever follows the first word. */
const echoText = fc.oneof(
  { weight: 4, arbitrary: oddString().map((s): Val => `echo ${s}`) },
  { weight: 1, arbitrary: longString('echo ') as fc.Arbitrary<Val> },
);

const textPart = echoText.map((text): Obj => ({ text }));
const dataPart = smallJson.map((data): Obj => ({ data, mediaType: 'application/json' }));
const rawPart = fc.uint8Array({ maxLength: 48 }).map((bytes): Obj => ({
  raw: Buffer.from(bytes).toString('base64'),
  mediaType: 'application/octet-stream',
  filename: 'blob.bin',
}));
// Never fetched by the skill; on loopback and the discard port anyway.
const urlPart = fc.constant<Obj>({ url: 'http://127.0.0.1:9/never-fetched.pdf', mediaType: 'application/pdf' });

/**
 * Depths around the limits that matter: a configured JSON depth (32 by default), protobuf's 100 nested messages (one
 * JSON level is 2 to 3 of them: Value, then ListValue or Struct and its map entry), and Node's stack.
 */
const depth = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.constantFrom(31, 32, 33, 34, 47, 48, 49, 50, 51, 64, 65, 99, 100, 101, 128, 1_000, 2_999, 3_000),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 40, max: 200 }) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 3_000 }) },
);
const deepValue = fc
  .record({
    depth,
    shape: fc.constantFrom('array', 'object', 'mixed'),
    leaf: fc.constantFrom<Val>(1, 'x', null, true, {}, []),
  })
  .map(({ depth: levels, shape, leaf }) => new Deep(levels, shape as Deep['shape'], leaf));

/** Renames known fields to their proto names (`message_id`…) where `mask` says so, walking messages, not Structs. */
function withProtoNames(type: DescMessage, object: Obj, mask: readonly boolean[], counter = { next: 0 }): Obj {
  return Object.fromEntries(
    Object.entries(object).map(([key, value]) => {
      const field = type.fields.find((f) => f.jsonName === key);
      if (!field) return [key, value];
      const snake = field.name !== field.jsonName && mask.length > 0 && mask[counter.next++ % mask.length];
      const inner = field.message && !field.message.typeName.startsWith('google.protobuf.') ? field.message : undefined;
      const renamed =
        inner && isPlainObject(value)
          ? withProtoNames(inner, value, mask, counter)
          : inner && Array.isArray(value)
            ? value.map((item) => (isPlainObject(item) ? withProtoNames(inner, item, mask, counter) : item))
            : value;
      return [snake ? field.name : key, renamed];
    }),
  );
}

/** Mostly camelCase; half the time some proto names. */
const namingMask = fc.option(fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }), {
  nil: [] as boolean[],
  freq: 2,
});

const ABSENT = Symbol('absent');
type Mutation = readonly [path: readonly (string | number)[], value: Val | typeof ABSENT];

/**
 * A copy of `base` with what each path names set or deleted; deeper paths first, so that a replaced parent is not
 * written into. A copy, because fast-check reuses generated values while shrinking.
 */
function mutate(base: Obj, mutations: readonly Mutation[]): Obj {
  const root = cloneVal(base) as Obj;
  for (const [path, value] of [...mutations].sort((a, b) => b[0].length - a[0].length)) {
    let parent: Val = root;
    for (const step of path.slice(0, -1))
      parent =
        isPlainObject(parent) || Array.isArray(parent)
          ? ((parent as Record<string | number, Val>)[step] ?? null)
          : null;
    if (!isPlainObject(parent) && !Array.isArray(parent)) continue;
    const last = path[path.length - 1];
    if (value === ABSENT) delete (parent as Record<string | number, Val>)[last];
    else
      Object.defineProperty(parent, last, {
        value: cloneVal(value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return root;
}

function cloneVal(value: Val): Val {
  if (Array.isArray(value)) return value.map(cloneVal);
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cloneVal(v)]));
  return value;
}

/** A valid SendMessage that completes at once (`echo`), or stays WORKING (data only), built fresh for each run. */
const validSend = fc
  .record({
    messageId: fc.uuid(),
    text: fc.option(fc.constantFrom('echo odd', 'echo')),
    historyLength: fc.option(fc.integer({ min: 0, max: 3 })),
    returnImmediately: fc.boolean(),
  })
  .map(({ messageId, text, historyLength, returnImmediately }): Obj => ({
    message: {
      messageId,
      role: 'ROLE_USER',
      parts: text === null ? [{ data: { n: 1 }, mediaType: 'application/json' }] : [{ text }],
    },
    configuration: historyLength === null ? { returnImmediately } : { returnImmediately, historyLength },
  }));

// Values of the wrong JSON type, each definitely invalid ProtoJSON for fields of the kind it is listed under.
const NOT_STRING: Val[] = [0, -1, 1.5, 2147483648, 1e308, true, false, [], ['x'], {}, { a: 1 }];
const NOT_INT32: Val[] = [
  2147483648,
  -2147483649,
  1e308,
  1.5,
  true,
  'abc',
  '1.5',
  '2147483648',
  [],
  [1],
  {},
  new NumberText('1e400'),
];
const NOT_BOOL: Val[] = [0, 1, 'yes', [], [true], {}];
const NOT_ROLE: Val[] = [
  'user',
  'USER',
  'Role_User',
  'role_user',
  'ROLE_USER ',
  ' ROLE_USER',
  'ROLE_USERX',
  '',
  true,
  1.5,
  [],
  ['ROLE_USER'],
  {},
];
const NOT_MESSAGE: Val[] = ['x', '', 5, true, [], [{}]];
const NOT_STRUCT: Val[] = ['x', 5, true, [], [1]];
const NOT_LIST: Val[] = ['x', 5, true, {}, { 0: 'a' }];
const NOT_STRING_LIST: Val[] = [...NOT_LIST, [1], [null], [[]], [{}], [true]];
const NOT_STATUS: Val[] = [
  'TASK_STATE_RUNNING',
  'working',
  'WORKING',
  'task_state_working',
  'TASK_STATE_WORKING ',
  true,
  1.5,
  [],
  {},
];
const NOT_TIMESTAMP: Val[] = ['yesterday', '2024-13-45T00:00:00Z', '2024-01-01', 5, true, [], {}];

/** SendMessage fields and values of the wrong type for them (JSON bindings: gRPC's wire has no JSON types). */
const TYPED_TARGETS: [readonly (string | number)[], Val[]][] = [
  [['message'], NOT_MESSAGE],
  [['message', 'messageId'], NOT_STRING],
  [['message', 'role'], NOT_ROLE],
  [['message', 'parts'], NOT_LIST],
  [['message', 'parts', 0], NOT_MESSAGE],
  [['message', 'parts', 0, 'text'], NOT_STRING],
  [['message', 'parts', 0, 'mediaType'], NOT_STRING],
  [['message', 'parts', 0, 'filename'], NOT_STRING],
  [['message', 'parts', 0, 'metadata'], NOT_STRUCT],
  [['message', 'contextId'], NOT_STRING],
  [['message', 'taskId'], NOT_STRING],
  [['message', 'metadata'], NOT_STRUCT],
  [['message', 'extensions'], NOT_STRING_LIST],
  [['message', 'referenceTaskIds'], NOT_STRING_LIST],
  [['configuration'], NOT_MESSAGE],
  [['configuration', 'acceptedOutputModes'], NOT_STRING_LIST],
  [['configuration', 'historyLength'], NOT_INT32],
  [['configuration', 'returnImmediately'], NOT_BOOL],
  [['configuration', 'taskPushNotificationConfig'], NOT_MESSAGE],
  [['metadata'], NOT_STRUCT],
  [['tenant'], NOT_STRING],
];

/**
 * SendMessage changes that are invalid whatever the encoding, so on gRPC too: required fields missing or empty (spec
 * §5.7), a part with no content or two, historyLength negative or past int32 (which the wire truncates to a negative
 * number).
 */
const SEMANTIC_MUTATIONS: Mutation[] = [
  [['message'], ABSENT],
  [['message'], null],
  [['message', 'messageId'], ABSENT],
  [['message', 'messageId'], ''],
  [['message', 'role'], ABSENT],
  [['message', 'role'], 'ROLE_UNSPECIFIED'],
  [['message', 'parts'], ABSENT],
  [['message', 'parts'], []],
  [['message', 'parts', 0], {}],
  [['message', 'parts', 0], { text: 'echo two kinds', data: 1 }],
  [['message', 'parts', 0], { text: 'echo two kinds', url: 'http://127.0.0.1:9/x' }],
  [['configuration', 'historyLength'], -1],
  [['configuration', 'historyLength'], -5],
  [['configuration', 'historyLength'], -2147483648],
  [['configuration', 'historyLength'], 2147483648],
];

const typedMutation: fc.Arbitrary<Mutation> = fc
  .constantFrom(...TYPED_TARGETS)
  .chain(([path, values]) => fc.constantFrom(...values).map((value): Mutation => [path, value]));
const semanticMutation = fc.constantFrom(...SEMANTIC_MUTATIONS);
const mutationList = (mutation: fc.Arbitrary<Mutation>) =>
  fc.uniqueArray(mutation, { minLength: 1, maxLength: 2, selector: ([path]) => path.join('.') });

/** Odd values of any type, some valid ProtoJSON (null, numeric enums, integers as strings), some not. */
const ODD_ANY: Val[] = [
  ...new Set([...NOT_STRING, ...NOT_INT32, ...NOT_BOOL, ...NOT_ROLE, ...NOT_MESSAGE, ...NOT_STRUCT, ...NOT_LIST]),
  null,
  0,
  1,
  2,
  99,
  -1,
  '5',
  '1e2',
  new NumberText('1.0'),
  new NumberText('-0'),
  new NumberText('1E2'),
  new NumberText('123456789012345678901234567890'),
  'ROLE_AGENT',
  'ROLE_UNSPECIFIED',
  'TASK_STATE_WORKING',
  new Deep(10, 'mixed', 1),
];
// Not `tenant`: a task is scoped by its tenant, and on gRPC an odd one still arrives as some string, unknown here.
const oddMutation = fc
  .tuple(
    fc.constantFrom(
      ...TYPED_TARGETS.flatMap(([path]) => (path[0] === 'tenant' ? [] : [path])),
      ['futureField'],
      ['message', 'futureField'],
      ['message', 'parts', 0, 'futureField'],
    ),
    fc.constantFrom(...ODD_ANY),
  )
  .map(([path, value]): Mutation => [path, value]);

const SEND = requestType('SendMessage');
const GET = requestType('GetTask');
const LIST = requestType('ListTasks');

/** Where a deep value goes in a SendMessage. */
const DEEP_SLOTS = [
  'data part',
  'part metadata',
  'message metadata',
  'request metadata',
  'unknown request field',
  'unknown message field',
  'unknown part field',
  'unknown configuration field',
  'parts itself',
] as const;

const deepSend = fc
  .record({
    messageId: fc.uuid(),
    text: fc.option(fc.constant('echo deep')),
    slots: fc.uniqueArray(fc.constantFrom(...DEEP_SLOTS), { minLength: 1, maxLength: 2 }),
    deep: deepValue,
    returnImmediately: fc.boolean(),
    mask: namingMask,
  })
  .map(({ messageId, text, slots, deep, returnImmediately, mask }): Obj => {
    const first: Obj = text === null ? { data: { shallow: true } } : { text };
    const parts: Val[] = [first];
    const message: Obj = { messageId, role: 'ROLE_USER', parts };
    const configuration: Obj = { returnImmediately };
    const request: Obj = { message, configuration };
    for (const slot of slots) {
      if (slot === 'data part') parts.push({ data: deep });
      if (slot === 'part metadata') first.metadata = { k: deep };
      if (slot === 'message metadata') message.metadata = { k: deep };
      if (slot === 'request metadata') request.metadata = { k: deep };
      if (slot === 'unknown request field') request.futureField = deep;
      if (slot === 'unknown message field') message.futureField = deep;
      if (slot === 'unknown part field') first.futureField = deep;
      if (slot === 'unknown configuration field') configuration.futureField = deep;
      if (slot === 'parts itself') message.parts = deep;
    }
    return withProtoNames(SEND, request, mask);
  });

const bodyBytes = (request: Obj) => Buffer.byteLength(jsonText(request));

const wideSend = fc
  .record({
    messageId: fc.uuid(),
    first: fc.option(textPart),
    parts: fc.array(fc.oneof(dataPart, rawPart, urlPart, textPart), { maxLength: 149 }),
    metadataKeys: fc.option(fc.integer({ min: 1, max: 2_000 }).map((count) => new ManyKeys(count, 1))),
    longArray: fc.option(fc.integer({ min: 1, max: 6_000 }).map((count) => new LongArray(count, 0))),
    longText: fc.option(longString()),
    outputModes: fc.option(fc.integer({ min: 1, max: 500 }).map((count) => new LongArray(count, 'text/plain'))),
    returnImmediately: fc.boolean(),
    mask: namingMask,
  })
  .map(({ messageId, first, parts, metadataKeys, longArray, longText, outputModes, returnImmediately, mask }): Obj => {
    const allParts = [...(first ? [first] : []), ...parts];
    const message: Obj = { messageId, role: 'ROLE_USER', parts: allParts.length > 0 ? allParts : [{ data: {} }] };
    if (metadataKeys) message.metadata = metadataKeys;
    const request: Obj = {
      message,
      configuration: outputModes ? { returnImmediately, acceptedOutputModes: outputModes } : { returnImmediately },
    };
    if (longArray || longText)
      request.metadata = { ...(longArray ? { list: longArray } : {}), ...(longText ? { text: longText } : {}) };
    return withProtoNames(SEND, request, mask);
  })
  .filter((request) => bodyBytes(request) < MAX_BODY_BYTES);

const unicodeSend = fc
  .record({
    messageId: oddId,
    contextId: fc.option(oddId),
    // Tasks that do not exist: the answer is an error that names them.
    taskId: fc.option(oddId, { freq: 4 }),
    referenceTaskIds: fc.option(fc.array(oddId, { maxLength: 2 }), { freq: 4 }),
    text: echoText,
    mediaType: fc.option(oddString(6)),
    filename: fc.option(oddString(6)),
    metadata: fc.option(fc.dictionary(oddKey, oddString(), { maxKeys: 5 })),
    data: fc.option(fc.dictionary(oddKey, oddString(), { maxKeys: 5 })),
    extensions: fc.option(fc.array(oddString(6), { maxLength: 3 })),
    returnImmediately: fc.boolean(),
    mask: namingMask,
  })
  .map(
    ({
      messageId,
      contextId,
      taskId,
      referenceTaskIds,
      text,
      mediaType,
      filename,
      metadata,
      data,
      extensions,
      returnImmediately,
      mask,
    }): Obj => {
      const part: Obj = { text };
      if (mediaType !== null) part.mediaType = mediaType;
      if (filename !== null) part.filename = filename;
      const message: Obj = { messageId, role: 'ROLE_USER', parts: data === null ? [part] : [part, { data }] };
      if (contextId !== null) message.contextId = contextId;
      if (taskId !== null) message.taskId = taskId;
      if (referenceTaskIds !== null) message.referenceTaskIds = referenceTaskIds;
      if (metadata !== null) message.metadata = metadata;
      if (extensions !== null) message.extensions = extensions;
      return withProtoNames(SEND, { message, configuration: { returnImmediately } }, mask);
    },
  )
  .filter((request) => bodyBytes(request) < MAX_BODY_BYTES);

const oddTypedSend = fc
  .tuple(validSend, fc.uniqueArray(oddMutation, { minLength: 1, maxLength: 3, selector: ([path]) => path.join('.') }))
  .map(([base, mutations]) => mutate(base, mutations));

/** The proto name of a camelCase field: `historyLength` → `history_length`. */
const protoName = (camel: string) => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

// ---------------------------------------------------------------------------------------------------------------------
// The agent and a few tasks to read, list and cancel.

interface Pool {
  completed: string;
  working: string[];
  /** A context holding exactly three completed tasks with artifacts. */
  contextId: string;
}

let pool: Pool;

beforeAll(async () => {
  agent = await startConformanceAgent({ withGrpc: true });
  jsonRpc = new JsonRpcBinding(`${agent.url}/`);
  rest = new RestBinding(agent.url);
  grpcBinding = new GrpcBinding(agent.grpcAddress!);
  bindings = [jsonRpc, rest, grpcBinding];
  const send = async (message: Obj) =>
    (await jsonRpc.call('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', ...message } }))
      .taskIds[0];
  const contextId = randomUUID();
  pool = {
    completed: await send({ parts: [{ text: 'echo pool' }] }),
    working: await Promise.all(Array.from({ length: 6 }, () => send({ parts: [{ data: { pool: true } }] }))),
    contextId,
  };
  for (const word of ['one', 'two', 'three']) await send({ contextId, parts: [{ text: `echo ${word}` }] });
}, 30_000);

beforeEach(() => grpcBinding?.reconnect());

afterAll(async () => {
  grpcBinding?.close();
  await agent?.close();
});

const ALL: BindingName[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];
const JSON_BINDINGS: BindingName[] = ['JSONRPC', 'HTTP+JSON'];
const bindingNamed = (name: BindingName) => bindings.find((b) => b.name === name)!;

const knownTaskId = () => fc.constantFrom(pool.completed, ...pool.working);
/** Three times in four a usual value, so that requests with several fields are still often valid and get read back. */
const mostly = (usual: fc.Arbitrary<Val>, odd: fc.Arbitrary<Val>) =>
  fc.oneof({ weight: 3, arbitrary: usual }, { weight: 1, arbitrary: odd });
/** The default tenant, or an odd one (tasks are scoped by tenant: the pool's are in the default one). */
const tenantArb = mostly(
  fc.constant(''),
  fc.oneof(
    oddString(6).filter((s) => s !== '.' && s !== '..'),
    fc.constantFrom(...NOT_STRING),
  ),
);

// Reads come first: every task the SendMessage properties leave behind is listed by an unfiltered ListTasks.
describe('GetTask, ListTasks and CancelTask with odd params', () => {
  it.each(ALL)(
    '%s: GetTask with odd ids, historyLength, tenants and unknown fields',
    async (name) => {
      const request = fc
        .record(
          {
            id: mostly(knownTaskId(), fc.oneof(oddId, fc.constantFrom(...NOT_STRING))),
            historyLength: mostly(
              fc.integer({ min: 0, max: 5 }),
              fc.constantFrom<Val>(...NOT_INT32, null, -1, '3', new NumberText('2.0')),
            ),
            tenant: tenantArb,
            futureField: smallJson,
          },
          { requiredKeys: ['id'] },
        )
        .chain((fields) => namingMask.map((mask) => withProtoNames(GET, fields as Obj, mask)));
      await check(request, async (params) => void (await expectWellBehaved(bindingNamed(name), 'GetTask', params)), 60);
    },
    TEST_TIMEOUT_MS,
  );

  it.each(ALL)(
    '%s: ListTasks with odd filters, page sizes, tokens and timestamps',
    async (name) => {
      const request = fc
        .record(
          {
            contextId: mostly(fc.constant(pool.contextId), fc.oneof(oddId, fc.constantFrom(...NOT_STRING))),
            status: mostly(
              fc.constantFrom('TASK_STATE_WORKING', 'TASK_STATE_COMPLETED', 'TASK_STATE_UNSPECIFIED', 3),
              fc.constantFrom(...NOT_STATUS),
            ),
            pageSize: mostly(fc.integer({ min: 1, max: 100 }), fc.constantFrom<Val>(0, -1, 101, ...NOT_INT32)),
            pageToken: mostly(fc.constant(''), fc.oneof(oddString(), fc.base64String({ maxLength: 40 }), longString())),
            historyLength: mostly(fc.integer({ min: 0, max: 5 }), fc.constantFrom(...NOT_INT32)),
            statusTimestampAfter: mostly(
              fc
                .date({
                  min: new Date('1970-01-01T00:00:00Z'),
                  max: new Date('2100-01-01T00:00:00Z'),
                  noInvalidDate: true,
                })
                .map((d) => d.toISOString()),
              fc.constantFrom(
                '1970-01-01T00:00:00+02:00',
                '9999-12-31T23:59:59.999999999Z',
                '0001-01-01T00:00:00Z',
                ...NOT_TIMESTAMP,
              ),
            ),
            includeArtifacts: mostly(fc.boolean(), fc.constantFrom<Val>('true', ...NOT_BOOL)),
            tenant: tenantArb,
            futureField: smallJson,
          },
          { requiredKeys: [] },
        )
        .chain((fields) => namingMask.map((mask) => withProtoNames(LIST, fields as Obj, mask)));
      await check(
        request,
        async (params) => void (await expectWellBehaved(bindingNamed(name), 'ListTasks', params)),
        60,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it.each(ALL)(
    '%s: CancelTask with odd ids, metadata and unknown fields',
    async (name) => {
      const request = fc.record(
        {
          id: mostly(knownTaskId(), fc.oneof(oddId, fc.constantFrom(...NOT_STRING))),
          metadata: mostly(
            smallObject,
            fc.oneof(
              fc.constantFrom(...NOT_STRUCT),
              deepValue.map((deep): Val => ({ k: deep })),
            ),
          ),
          tenant: tenantArb,
          futureField: smallJson,
        },
        { requiredKeys: ['id'] },
      ) as fc.Arbitrary<Obj>;
      await check(
        request,
        async (params) => void (await expectWellBehaved(bindingNamed(name), 'CancelTask', params)),
        60,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'HTTP+JSON: raw query strings on GET /tasks and GET /tasks/{id}',
    async () => {
      const key = fc.oneof(
        fc.constantFrom(
          'pageSize',
          'page_size',
          'historyLength',
          'history_length',
          'contextId',
          'context_id',
          'status',
          'includeArtifacts',
          'include_artifacts',
          'statusTimestampAfter',
          'status_timestamp_after',
          'pageToken',
          'page_token',
          'tenant',
          'A2A-Version',
          'pageSize[]',
          'pageSize[a]',
          '__proto__',
          '__proto__[x]',
          'constructor[prototype][x]',
          'a[b][c][d][e][f]',
        ),
        oddString(4).map(percentEncode),
      );
      const value = fc.oneof(
        fc.constantFrom(
          '',
          '1',
          '-1',
          '0',
          '101',
          '2147483648',
          '1e308',
          '1.5',
          '0x10',
          '%205',
          '5%20',
          '%2B5',
          'true',
          'TRUE',
          'TASK_STATE_WORKING',
          'null',
          '%zz',
          '%',
          '%ED%A0%80',
          '%00',
          '%C0%AF',
          '%FF',
          '0.3',
          '1.0',
        ),
        oddString().map(percentEncode),
      );
      const query = fc
        .array(fc.tuple(key, value), { maxLength: 8 })
        .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));
      const path = fc.oneof(
        fc.constant('/tasks'),
        knownTaskId().map((id) => `/tasks/${id}`),
        oddId.map((id) => `/tasks/${percentEncode(asText(id))}`),
      );
      await check(
        fc.tuple(path, query),
        async ([taskPath, search]) => {
          const answer = await rest.send('GET', `${taskPath}?${search}`);
          if (answer.ok) await expectReadableEverywhere(answer, undefined);
        },
        80,
      );
    },
    TEST_TIMEOUT_MS,
  );

  describe('invalid params are rejected with the invalid-params error (spec §5.7, §6.5)', () => {
    // Negative or out-of-range integers are invalid on every binding; wrong JSON types and unknown names only exist in JSON.
    const GET_EVERYWHERE: Val[] = [-1, -5, -2147483648, 2147483648];
    const PAGE_SIZE_EVERYWHERE: Val[] = [0, -1, 101, 150, 2147483647, -2147483648, 2147483648];

    it.each(ALL)(
      '%s: GetTask historyLength, ListTasks pageSize, historyLength, status, statusTimestampAfter',
      async (name) => {
        // In a query string a list is the parameter repeated, so `[]` is no parameter and `[x]` is just `x`.
        const typed = (values: Val[]) =>
          name === 'GRPC'
            ? []
            : name === 'HTTP+JSON'
              ? values.filter((v) => !Array.isArray(v) || v.length > 1)
              : values;
        const invalid = fc.oneof(
          fc
            .constantFrom(...GET_EVERYWHERE, ...typed(NOT_INT32))
            .map((historyLength) => ['GetTask', { id: pool.completed, historyLength }] as const),
          fc
            .constantFrom(...PAGE_SIZE_EVERYWHERE, ...typed(NOT_INT32))
            .map((pageSize) => ['ListTasks', { contextId: pool.contextId, pageSize }] as const),
          fc
            .constantFrom(...GET_EVERYWHERE, ...typed(NOT_INT32))
            .map((historyLength) => ['ListTasks', { contextId: pool.contextId, historyLength }] as const),
          ...(name === 'GRPC'
            ? []
            : [
                fc
                  .constantFrom(...typed(NOT_STATUS))
                  .map((status) => ['ListTasks', { contextId: pool.contextId, status }] as const),
                fc
                  .constantFrom(...typed(NOT_TIMESTAMP))
                  .map(
                    (statusTimestampAfter) =>
                      ['ListTasks', { contextId: pool.contextId, statusTimestampAfter }] as const,
                  ),
              ]),
        );
        await check(invalid, ([operation, params]) => expectInvalidParams(bindingNamed(name), operation, params), 60);
      },
      TEST_TIMEOUT_MS,
    );
  });

  it.each(JSON_BINDINGS)(
    '%s: ListTasks takes proto field names (context_id, page_size, history_length, include_artifacts) as camelCase ones',
    async (name) => {
      const request = fc.record({
        pageSize: fc.integer({ min: 1, max: 4 }),
        historyLength: fc.option(fc.integer({ min: 0, max: 2 })),
        includeArtifacts: fc.option(fc.boolean()),
        mask: fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }).filter((mask) => mask.some(Boolean)),
      });
      await check(
        request,
        async ({ pageSize, historyLength, includeArtifacts, mask }) => {
          const fields: Obj = { contextId: pool.contextId, pageSize };
          if (historyLength !== null) fields.historyLength = historyLength;
          if (includeArtifacts !== null) fields.includeArtifacts = includeArtifacts;
          const params = Object.fromEntries(
            Object.entries(fields).map(([key, value], i) => [mask[i % mask.length] ? protoName(key) : key, value]),
          );
          const answer = await bindingNamed(name).call('ListTasks', params);
          const tasks = (answer.body?.tasks ?? []) as { [key: string]: unknown }[];
          const why = !answer.ok
            ? 'rejected'
            : tasks.length !== Math.min(pageSize, 3)
              ? `${tasks.length} tasks, not ${Math.min(pageSize, 3)}: page size ignored`
              : tasks.some((t) => t.contextId !== pool.contextId)
                ? 'tasks of other contexts: contextId ignored'
                : historyLength === 0 && tasks.some((t) => Array.isArray(t.history) && t.history.length > 0)
                  ? 'history despite historyLength 0'
                  : tasks.some((t) => (includeArtifacts === true) !== 'artifacts' in t)
                    ? `artifacts ${includeArtifacts ? 'missing' : 'present'} with includeArtifacts ${String(includeArtifacts)}`
                    : undefined;
          if (why) throw new Error(`${name} ListTasks ${JSON.stringify(params)}: ${why}: ${answer.excerpt}`);
        },
        40,
      );
    },
    TEST_TIMEOUT_MS,
  );
});

describe('SendMessage with odd requests', () => {
  it.each(ALL)(
    '%s: values nested 1 to 3,000 levels deep in data, metadata and unknown fields',
    (name) =>
      check(
        deepSend,
        async (request) => void (await expectWellBehaved(bindingNamed(name), 'SendMessage', request)),
        100,
      ),
    TEST_TIMEOUT_MS,
  );

  it.each(ALL)(
    '%s: wide requests: up to 150 parts, thousands of keys and items, long strings',
    (name) =>
      check(
        wideSend,
        async (request) => void (await expectWellBehaved(bindingNamed(name), 'SendMessage', request)),
        40,
      ),
    TEST_TIMEOUT_MS,
  );

  it.each(ALL)(
    '%s: odd Unicode: lone surrogates, NUL, RTL marks, emoji, very long ids',
    (name) =>
      check(
        unicodeSend,
        async (request) => void (await expectWellBehaved(bindingNamed(name), 'SendMessage', request)),
        60,
      ),
    TEST_TIMEOUT_MS,
  );

  it.each(ALL)(
    '%s: odd values in every field (wrong types, null, numeric enums, huge numbers; on gRPC mismatched wire types)',
    (name) =>
      check(
        oddTypedSend,
        async (request) => void (await expectWellBehaved(bindingNamed(name), 'SendMessage', request)),
        80,
      ),
    TEST_TIMEOUT_MS,
  );

  it.each(ALL)(
    '%s: invalid requests are rejected with the invalid-params error, and create no task (spec §5.7)',
    (name) => {
      const mutation = name === 'GRPC' ? semanticMutation : fc.oneof(typedMutation, semanticMutation);
      const request = fc.tuple(validSend, mutationList(mutation)).map(([base, mutations]) => mutate(base, mutations));
      return check(request, (params) => expectInvalidParams(bindingNamed(name), 'SendMessage', params), 80);
    },
    TEST_TIMEOUT_MS,
  );

  it.each(JSON_BINDINGS)(
    '%s: proto field names (message_id, context_id, media_type, history_length, return_immediately…) are accepted and honoured (§5.7)',
    (name) => {
      const request = fc.record({
        messageId: fc.uuid(),
        contextId: fc.option(fc.uuid()),
        mediaType: fc.option(fc.constant('text/plain')),
        withData: fc.boolean(),
        historyLength: fc.option(fc.integer({ min: 0, max: 3 })),
        returnImmediately: fc.option(fc.boolean()),
        acceptedOutputModes: fc.option(fc.constant<Val>(['text/plain', 'application/json'])),
        mask: fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }).filter((mask) => mask.some(Boolean)),
      });
      return check(
        request,
        async ({
          messageId,
          contextId,
          mediaType,
          withData,
          historyLength,
          returnImmediately,
          acceptedOutputModes,
          mask,
        }) => {
          const part: Obj = mediaType === null ? { text: 'echo snake' } : { text: 'echo snake', mediaType };
          const message: Obj = {
            messageId,
            role: 'ROLE_USER',
            parts: withData ? [part, { data: { n: 1 }, mediaType: 'application/json' }] : [part],
          };
          if (contextId !== null) message.contextId = contextId;
          const configuration: Obj = {};
          if (historyLength !== null) configuration.historyLength = historyLength;
          if (returnImmediately !== null) configuration.returnImmediately = returnImmediately;
          if (acceptedOutputModes !== null) configuration.acceptedOutputModes = acceptedOutputModes;
          const params = withProtoNames(SEND, { message, configuration }, mask);
          const answer = await bindingNamed(name).call('SendMessage', params);
          const task = answer.body?.task as { [key: string]: unknown } | undefined;
          const history = Array.isArray(task?.history) ? (task.history as { [key: string]: unknown }[]) : [];
          const why = !answer.ok
            ? 'rejected'
            : !task
              ? 'no task'
              : contextId !== null && task.contextId !== contextId
                ? `contextId ${String(task.contextId)}, not the one sent`
                : historyLength !== null && history.length > historyLength
                  ? `${history.length} history messages despite historyLength ${historyLength}`
                  : undefined;
          if (why) throw new Error(`${name} SendMessage ${jsonText(params)}: ${why}: ${answer.excerpt}`);
          await expectReadableEverywhere(answer, undefined);
        },
        50,
      );
    },
    TEST_TIMEOUT_MS,
  );
});

describe('malformed envelopes, bodies and frames', () => {
  it(
    'JSONRPC: odd envelopes: versions, ids, methods, params, batches, non-objects',
    async () => {
      const MISSING = Symbol('missing');
      const member = <T>(arbitrary: fc.Arbitrary<T>) =>
        fc.oneof({ weight: 4, arbitrary }, { weight: 1, arbitrary: fc.constant(MISSING) });
      const envelope = fc.record({
        jsonrpc: member(fc.constantFrom<Val>('2.0', '2.0', '1.0', 2, '2', null, '')),
        id: member(
          fc.oneof(
            fc.integer(),
            fc.string({ maxLength: 8 }),
            fc.constantFrom<Val>(null, 1.5, 2 ** 53 + 1, 1e308, -0, true, [], {}, [1], { id: 1 }),
          ),
        ),
        method: member(
          fc.oneof(
            fc.constantFrom<Val>(
              'SendMessage',
              'GetTask',
              'ListTasks',
              'CancelTask',
              'sendMessage',
              'SENDMESSAGE',
              'message/send',
              'tasks/get',
              '',
              'constructor',
              '__proto__',
              'toString',
              'hasOwnProperty',
              'rpc.discover',
            ),
            oddString(6),
            fc.constantFrom<Val>(null, 5, true, [], {}, ['SendMessage']),
          ),
        ),
        params: member(
          fc.oneof(
            validSend,
            knownTaskId().map((id): Val => ({ id })),
            smallJson,
            fc.constantFrom<Val>([], 'x', 5, null, [{ id: 'x' }]),
          ),
        ),
        extra: fc.option(fc.dictionary(oddKey, smallJson, { maxKeys: 3 })),
      });
      const toObject = ({ extra, ...members }: { extra: Obj | null } & Record<string, Val | typeof MISSING>): Obj => ({
        ...(extra ?? {}),
        ...Object.fromEntries(Object.entries(members).filter((entry): entry is [string, Val] => entry[1] !== MISSING)),
      });
      const body = fc.oneof(
        { weight: 6, arbitrary: envelope.map((e) => jsonText(toObject(e))) },
        { weight: 1, arbitrary: fc.array(envelope.map(toObject), { maxLength: 3 }).map(jsonText) },
        { weight: 1, arbitrary: fc.constantFrom('5', '"x"', 'null', 'true', '[]', '{}', '[[]]', '""') },
      );
      await check(
        body,
        async (text) => {
          const answer = await jsonRpc.send(text, 'envelope');
          if (answer.ok) await expectReadableEverywhere(answer, undefined);
        },
        100,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it.each(JSON_BINDINGS)(
    '%s: truncated and corrupted JSON bodies',
    (name) => {
      const corruption = fc.record({
        request: validSend,
        at: fc.nat(),
        how: fc.constantFrom('truncate', 'insert', 'replace', 'delete'),
        char: fc.constantFrom(
          '{',
          '}',
          '[',
          ']',
          ',',
          ':',
          '"',
          '\\',
          '\u0000',
          '\ud800',
          'x',
          ' ',
          '1',
          'e',
          '-',
          '.',
          'n',
          '\u2028',
          '\ufeff',
        ),
      });
      return check(
        corruption,
        async ({ request, at, how, char }) => {
          const valid =
            name === 'JSONRPC'
              ? `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":${jsonText(request)}}`
              : jsonText(request);
          const i = at % valid.length;
          const body =
            how === 'truncate'
              ? valid.slice(0, i)
              : how === 'insert'
                ? valid.slice(0, i) + char + valid.slice(i)
                : valid.slice(0, i) + (how === 'replace' ? char : '') + valid.slice(i + 1);
          const answer =
            name === 'JSONRPC'
              ? await jsonRpc.send(body, 'corrupted body')
              : await rest.send('POST', '/message:send', body);
          if (answer.ok) await expectReadableEverywhere(answer, undefined);
        },
        80,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'GRPC: raw frames: random bytes, corrupted requests, deep nesting, invalid UTF-8',
    async () => {
      const valid = protoMessage(SEND, {
        message: { messageId: 'frame', role: 'ROLE_USER', parts: [{ text: 'echo frame' }] },
        configuration: { returnImmediately: true },
      });
      /** Field 15, unknown everywhere, as `depth` nested groups or length-delimited messages. */
      const nested = (depth: number, groups: boolean): Buffer => {
        if (groups) return Buffer.concat([Buffer.alloc(depth, (15 << 3) | 3), Buffer.alloc(depth, (15 << 3) | 4)]);
        const headers: Buffer[] = [];
        let size = 0;
        for (let level = 0; level < depth; level++) {
          const header = new ProtoWriter().tag(15, WIRE.len).varint(size).finish();
          headers.push(header);
          size += header.length;
        }
        return Buffer.concat(headers.reverse());
      };
      const frame = fc.oneof(
        fc.uint8Array({ maxLength: 256 }).map((bytes) => ({ kind: 'random', bytes })),
        fc.record({
          kind: fc.constantFrom('truncate', 'flip', 'insert'),
          at: fc.nat(),
          byte: fc.integer({ min: 0, max: 255 }),
        }),
        fc.record({
          kind: fc.constantFrom('groups', 'nested'),
          depth: fc.oneof(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 200, max: 20_000 })),
        }),
        fc.record({
          kind: fc.constant('invalid utf-8'),
          bytes: fc.constantFrom([0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xff], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80]),
        }),
      );
      const toBytes = (f: {
        kind: string;
        bytes?: Uint8Array | readonly number[];
        at?: number;
        byte?: number;
        depth?: number;
      }): Buffer => {
        const i = (f.at ?? 0) % valid.length;
        switch (f.kind) {
          case 'random':
            return Buffer.from(f.bytes!);
          case 'truncate':
            return valid.subarray(0, i);
          case 'flip':
            return Buffer.concat([
              valid.subarray(0, i),
              Buffer.from([valid[i] ^ (f.byte! || 1)]),
              valid.subarray(i + 1),
            ]);
          case 'insert':
            return Buffer.concat([valid.subarray(0, i), Buffer.from([f.byte!]), valid.subarray(i)]);
          case 'groups':
          case 'nested':
            return Buffer.concat([valid, nested(f.depth!, f.kind === 'groups')]);
          default: {
            // A messageId, then a text, that are not UTF-8.
            const bad = Buffer.from(f.bytes!);
            const part = new ProtoWriter().len(1, Buffer.concat([Buffer.from('echo '), bad])).finish();
            const message = new ProtoWriter().len(1, bad).tag(4, WIRE.varint).varint(1).len(5, part).finish();
            return new ProtoWriter().len(2, message).finish();
          }
        }
      };
      await check(
        fc.tuple(fc.constantFrom<Operation>('SendMessage', 'GetTask', 'ListTasks', 'CancelTask'), frame),
        async ([operation, f]) => {
          const answer = await grpcBinding.send(operation, toBytes(f));
          if (answer.ok) await expectReadableEverywhere(answer, undefined);
        },
        150,
      );
    },
    TEST_TIMEOUT_MS,
  );
});

it(
  'still answers a plain SendMessage on every binding after all of that',
  async () => {
    await expectStillServing();
  },
  TEST_TIMEOUT_MS,
);
