import { ALL_TASK_STATES } from '../task/task-states.js';
import { A2aError, type FieldViolation } from '../errors/a2a.error.js';
import { DEFAULT_MAX_JSON_DEPTH, tooDeepAt } from '../json/json-depth.js';
import type {
  AuthenticationInfo,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  JsonObject,
  JsonValue,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  Message,
  Part,
  SendMessageConfiguration,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
  TaskState,
} from './a2a.types.js';

/*
 * The request validators shared by every binding (spec §5.7). Each takes the decoded ProtoJSON request (the
 * JSON-RPC `params`, the REST body merged with path and query values, the gRPC message as JSON) and returns a clean,
 * typed copy holding only the fields the proto defines, or throws InvalidParams listing every problem at once, so a
 * client fixes its request in one round trip.
 *
 * ProtoJSON conventions applied throughout (§5.7): a field may be named by its JSON name (`messageId`) or its proto
 * name (`message_id`), not both; unknown fields are ignored (spec §5.7); `null` means unset; an empty string in an
 * optional id or token is its default value, hence unset too (the engine never sees `taskId: ""`); enums are accepted
 * by name only; integers are int32. Free-form values (`metadata`, a part's `data`) may nest at most `maxJsonDepth`
 * levels: this is the first walk over the body, so the bound holds before anything else recurses into it.
 */

/** What the validators bound besides the protocol's own rules (`limits` in the module options). */
export interface ValidationLimits {
  /** Deepest nesting of arrays and objects in a free-form value (see `tooDeepAt`). */
  readonly maxJsonDepth: number;
}

export const DEFAULT_VALIDATION_LIMITS: ValidationLimits = { maxJsonDepth: DEFAULT_MAX_JSON_DEPTH };

const MAX_PAGE_SIZE = 100;
const INT32_MAX = 2_147_483_647;
const TASK_STATES: ReadonlySet<string> = new Set(ALL_TASK_STATES);
const PART_CONTENT_FIELDS = ['text', 'raw', 'url', 'data'] as const;
// Standard or URL-safe alphabet (not mixed), padding optional; lengths are checked separately.
const BASE64 = /^(?:[A-Za-z0-9+/]*|[A-Za-z0-9_-]*)={0,2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/i;

export function validateSendMessageRequest(input: unknown, limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS): SendMessageRequest {
  return validate(input, limits, (r) => {
    const message = r.object('message', { required: true });
    const configuration = r.object('configuration');
    const request: SendMessageRequest = {
      ...tenantOf(r),
      // A missing message is a violation, so validate() throws before this placeholder could escape.
      message: message ? readMessage(message) : (undefined as never),
    };
    if (configuration) request.configuration = readConfiguration(configuration);
    assign(request, 'metadata', r.struct('metadata'));
    return request;
  });
}

export function validateGetTaskRequest(input: unknown, limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS): GetTaskRequest {
  return validate(input, limits, (r) => {
    const request: GetTaskRequest = { ...tenantOf(r), id: r.id('id') };
    assign(request, 'historyLength', r.integer('historyLength', { min: 0 }));
    return request;
  });
}

export function validateListTasksRequest(input: unknown, limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS): ListTasksRequest {
  return validate(input, limits, (r) => {
    const request: ListTasksRequest = tenantOf(r);
    assign(request, 'contextId', r.string('contextId'));
    assign(request, 'status', r.taskState('status'));
    assign(request, 'pageSize', r.integer('pageSize', { min: 1, max: MAX_PAGE_SIZE }));
    assign(request, 'pageToken', r.string('pageToken'));
    assign(request, 'historyLength', r.integer('historyLength', { min: 0 }));
    assign(request, 'statusTimestampAfter', r.timestamp('statusTimestampAfter'));
    assign(request, 'includeArtifacts', r.boolean('includeArtifacts'));
    return request;
  });
}

export function validateCancelTaskRequest(input: unknown, limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS): CancelTaskRequest {
  return validate(input, limits, (r) => {
    const request: CancelTaskRequest = { ...tenantOf(r), id: r.id('id') };
    assign(request, 'metadata', r.struct('metadata'));
    return request;
  });
}

export function validateSubscribeToTaskRequest(input: unknown, limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS): SubscribeToTaskRequest {
  return validate(input, limits, (r) => ({ ...tenantOf(r), id: r.id('id') }));
}

/**
 * CreateTaskPushNotificationConfig's request is the config itself. `taskId` is required here (the task to watch; the
 * REST binding fills it from the path), unlike in `SendMessageConfiguration`, where the task does not exist yet.
 */
export function validateTaskPushNotificationConfig(input: unknown, limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS): TaskPushNotificationConfig {
  return validate(input, limits, (r) => readPushConfig(r, { taskIdRequired: true }));
}

export function validateGetTaskPushNotificationConfigRequest(input: unknown, limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS): GetTaskPushNotificationConfigRequest {
  return validate(input, limits, (r) => ({ ...tenantOf(r), taskId: r.id('taskId'), id: r.id('id') }));
}

export function validateDeleteTaskPushNotificationConfigRequest(
  input: unknown,
  limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS,
): DeleteTaskPushNotificationConfigRequest {
  return validateGetTaskPushNotificationConfigRequest(input, limits);
}

export function validateListTaskPushNotificationConfigsRequest(input: unknown, limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS): ListTaskPushNotificationConfigsRequest {
  return validate(input, limits, (r) => {
    const request: ListTaskPushNotificationConfigsRequest = { ...tenantOf(r), taskId: r.id('taskId') };
    // 0 is the proto default, meaning "server default".
    assign(request, 'pageSize', r.integer('pageSize', { min: 0, max: MAX_PAGE_SIZE }));
    assign(request, 'pageToken', r.string('pageToken'));
    return request;
  });
}

/** The request has only `tenant`; JSON-RPC callers may leave `params` out altogether. */
export function validateGetExtendedAgentCardRequest(
  input: unknown,
  limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS,
): GetExtendedAgentCardRequest {
  return validate(input ?? {}, limits, (r) => tenantOf(r));
}

// ---- messages ----

function readMessage(r: FieldReader): Message {
  rejectKindField(r, 'Messages');
  const message: Message = {
    messageId: r.id('messageId'),
    role: readIncomingRole(r),
    parts: r.objects('parts', { required: true, nonEmpty: true })?.map(readPart) ?? [],
  };
  assign(message, 'contextId', r.string('contextId'));
  assign(message, 'taskId', r.string('taskId'));
  assign(message, 'metadata', r.struct('metadata'));
  assign(message, 'extensions', r.stringList('extensions'));
  assign(message, 'referenceTaskIds', r.stringList('referenceTaskIds'));
  return message;
}

/** Messages reaching an agent come from the user; v0.3's lowercase role names get a pointer to the v1.0 name. */
function readIncomingRole(r: FieldReader): 'ROLE_USER' {
  const role = r.value('role');
  if (role === 'ROLE_USER') return role;
  if (role === undefined || role === 'ROLE_UNSPECIFIED') r.violation('role', 'Required: ROLE_USER');
  else if (role === 'user' || role === 'agent') r.violation('role', `"${role}" is a v0.3 role name; A2A v1.0 uses ROLE_USER`);
  else if (role === 'ROLE_AGENT') r.violation('role', 'A message sent to an agent must have role ROLE_USER');
  else r.violation('role', 'Must be ROLE_USER (enum values are sent by name)');
  return 'ROLE_USER';
}

function readPart(r: FieldReader): Part {
  rejectKindField(r, 'Parts');
  if (r.value('file') !== undefined) {
    r.violation('file', 'v0.3 file parts are not A2A v1.0: send the bytes as `raw` (base64) or a link as `url`, with `filename` and `mediaType` beside it');
  }
  const present = PART_CONTENT_FIELDS.filter((name) => r.value(name) !== undefined);
  if (present.length !== 1) {
    r.violation('', present.length === 0
      ? 'A part needs exactly one of text, raw, url or data'
      : `A part holds exactly one of text, raw, url or data, not ${present.join(' and ')}`);
  }
  const part: Part = {};
  const text = r.string('text', { keepEmpty: true });
  if (text !== undefined) part.text = text;
  assign(part, 'raw', r.base64('raw'));
  assign(part, 'url', r.url('url'));
  assign(part, 'data', r.json('data'));
  assign(part, 'metadata', r.struct('metadata'));
  assign(part, 'filename', r.string('filename'));
  assign(part, 'mediaType', r.string('mediaType'));
  return part;
}

function rejectKindField(r: FieldReader, what: string): void {
  if (r.value('kind') !== undefined) {
    r.violation('kind', `${what} have no \`kind\` in A2A v1.0 (a v0.3 field); the field that is set tells the kind`);
  }
}

function readConfiguration(r: FieldReader): SendMessageConfiguration {
  const configuration: SendMessageConfiguration = {};
  assign(configuration, 'acceptedOutputModes', r.stringList('acceptedOutputModes'));
  const push = r.object('taskPushNotificationConfig');
  if (push) configuration.taskPushNotificationConfig = readPushConfig(push, { taskIdRequired: false });
  assign(configuration, 'historyLength', r.integer('historyLength', { min: 0 }));
  assign(configuration, 'returnImmediately', r.boolean('returnImmediately'));
  return configuration;
}

function readPushConfig(r: FieldReader, { taskIdRequired }: { taskIdRequired: boolean }): TaskPushNotificationConfig {
  const config: TaskPushNotificationConfig = { ...tenantOf(r), url: r.url('url', { required: true, httpOnly: true }) ?? '' };
  assign(config, 'id', r.string('id'));
  if (taskIdRequired) config.taskId = r.id('taskId');
  else assign(config, 'taskId', r.string('taskId'));
  assign(config, 'token', r.string('token'));
  const auth = r.object('authentication');
  if (auth) {
    const authentication: AuthenticationInfo = { scheme: auth.id('scheme') };
    assign(authentication, 'credentials', auth.string('credentials'));
    config.authentication = authentication;
  }
  return config;
}

function tenantOf(r: FieldReader): { tenant?: string } {
  const tenant = r.string('tenant');
  return tenant === undefined ? {} : { tenant };
}

// ---- reading fields ----

function validate<T>(input: unknown, limits: ValidationLimits, read: (reader: FieldReader) => T): T {
  if (!isPlainObject(input)) {
    throw A2aError.invalidParams([{ field: '', description: 'The request must be a JSON object' }]);
  }
  const state: ReadState = { violations: [], maxJsonDepth: limits.maxJsonDepth };
  const result = read(new FieldReader(input, '', state));
  if (state.violations.length > 0) throw A2aError.invalidParams(state.violations);
  return result;
}

/** Shared by every reader of one request. */
interface ReadState {
  readonly violations: FieldViolation[];
  readonly maxJsonDepth: number;
}

/** Sets `target[key]` only when the value is present, so unset optional fields stay absent (spec §5.7). */
function assign<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads the fields of one JSON object, recording a violation (with its full path, e.g. `message.parts[0].raw`) for
 * each bad one and returning undefined for it, so reading carries on and every problem is reported.
 */
class FieldReader {
  private readonly fields: Record<string, unknown>;
  /** Fields given under both names, reported when read (unknown fields are ignored either way). */
  private readonly givenTwice: Map<string, string> | undefined;

  constructor(
    fields: Record<string, unknown>,
    private readonly path: string,
    private readonly state: ReadState,
  ) {
    ({ fields: this.fields, givenTwice: this.givenTwice } = withJsonNames(fields));
  }

  violation(name: string, description: string): void {
    this.state.violations.push({ field: this.pathOf(name), description });
  }

  /** The raw value; `null` counts as unset (ProtoJSON). */
  value(name: string): unknown {
    const protoName = this.givenTwice?.get(name);
    if (protoName !== undefined) {
      this.givenTwice!.delete(name);
      this.violation(name, `Given twice, as ${name} and as ${protoName}; send one of them`);
    }
    const value = Object.hasOwn(this.fields, name) ? this.fields[name] : undefined;
    return value === null ? undefined : value;
  }

  /** A REQUIRED identifier: a non-empty string. Returns '' after recording the violation. */
  id(name: string): string {
    const value = this.value(name);
    if (typeof value === 'string' && value !== '') return value;
    this.violation(name, value === undefined || value === '' ? 'Required: a non-empty string' : 'Must be a string');
    return '';
  }

  string(name: string, { keepEmpty = false } = {}): string | undefined {
    const value = this.value(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') return this.invalid(name, 'Must be a string');
    return value === '' && !keepEmpty ? undefined : value;
  }

  boolean(name: string): boolean | undefined {
    const value = this.value(name);
    if (value === undefined || typeof value === 'boolean') return value;
    return this.invalid(name, 'Must be true or false');
  }

  /** An int32 field, within `min` and `max` (default: the int32 maximum). */
  integer(name: string, { min, max = INT32_MAX }: { min: number; max?: number }): number | undefined {
    const value = this.value(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      return this.invalid(name, `Must be an integer from ${min} to ${max}`);
    }
    return value;
  }

  /** A `google.protobuf.Struct` (e.g. `metadata`): any JSON object within the depth limit. */
  struct(name: string): JsonObject | undefined {
    const value = this.value(name);
    if (value === undefined) return undefined;
    if (!isPlainObject(value)) return this.invalid(name, 'Must be a JSON object');
    return this.withinDepth(name, value) as JsonObject | undefined;
  }

  /** A `google.protobuf.Value` (a part's `data`): any JSON value within the depth limit. */
  json(name: string): JsonValue | undefined {
    const value = this.value(name);
    return value === undefined ? undefined : (this.withinDepth(name, value) as JsonValue | undefined);
  }

  stringList(name: string): string[] | undefined {
    const list = this.array(name);
    if (!list) return undefined;
    list.forEach((item, index) => {
      if (typeof item !== 'string') this.violation(`${name}[${index}]`, 'Must be a string');
    });
    return list.filter((item): item is string => typeof item === 'string');
  }

  /** A nested message, read by a child reader. */
  object(name: string, { required = false } = {}): FieldReader | undefined {
    const value = this.value(name);
    if (value === undefined) {
      if (required) this.violation(name, 'Required');
      return undefined;
    }
    if (!isPlainObject(value)) return this.invalid(name, 'Must be a JSON object');
    return new FieldReader(value, this.pathOf(name), this.state);
  }

  /** A repeated message field, as one reader per element. */
  objects(name: string, options: { required?: boolean; nonEmpty?: boolean } = {}): FieldReader[] | undefined {
    return this.array(name, options)?.flatMap((item, index) => {
      const element = `${name}[${index}]`;
      if (isPlainObject(item)) return [new FieldReader(item, this.pathOf(element), this.state)];
      this.violation(element, 'Must be a JSON object');
      return [];
    });
  }

  array(name: string, { required = false, nonEmpty = false } = {}): unknown[] | undefined {
    const value = this.value(name);
    if (value === undefined) {
      if (required) this.violation(name, nonEmpty ? 'Required: at least one element' : 'Required');
      return undefined;
    }
    if (!Array.isArray(value)) return this.invalid(name, 'Must be an array');
    if (nonEmpty && value.length === 0) return this.invalid(name, 'At least one element is required');
    return value;
  }

  taskState(name: string): TaskState | undefined {
    const value = this.value(name);
    if (value === undefined) return undefined;
    if (typeof value === 'string' && TASK_STATES.has(value)) return value as TaskState;
    // v0.3 spelled states in kebab case ("input-required").
    const v1Name = typeof value === 'string' ? `TASK_STATE_${value.toUpperCase().replace(/-/g, '_')}` : '';
    if (TASK_STATES.has(v1Name)) return this.invalid(name, `"${value}" is a v0.3 state name; A2A v1.0 uses ${v1Name}`);
    return this.invalid(name, `Must be one of ${ALL_TASK_STATES.join(', ')}`);
  }

  /** A `google.protobuf.Timestamp` (RFC 3339), returned in UTC with `Z`. */
  timestamp(name: string): string | undefined {
    const value = this.value(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !TIMESTAMP.test(value) || Number.isNaN(Date.parse(value))) {
      return this.invalid(name, 'Must be an ISO 8601 timestamp, e.g. 2026-01-05T10:15:00.000Z');
    }
    return new Date(value).toISOString();
  }

  /** `bytes`: standard or URL-safe base64, returned as the padded standard form ProtoJSON writes. */
  base64(name: string): string | undefined {
    const value = this.value(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !isBase64(value)) return this.invalid(name, 'Must be base64 (standard or URL-safe)');
    return Buffer.from(value, 'base64').toString('base64');
  }

  url(name: string, { required = false, httpOnly = false } = {}): string | undefined {
    const value = this.value(name);
    if (value === undefined || (required && value === '')) {
      if (required) this.violation(name, 'Required: an absolute URL');
      return undefined;
    }
    if (typeof value !== 'string' || !URL.canParse(value)) return this.invalid(name, 'Must be an absolute URL');
    if (httpOnly && !/^https?:$/.test(new URL(value).protocol)) return this.invalid(name, 'Must be an http or https URL');
    return value;
  }

  private withinDepth(name: string, value: unknown): unknown {
    const max = this.state.maxJsonDepth;
    const at = tooDeepAt(value, max);
    if (at === undefined) return value;
    return this.invalid(name, `Nested deeper than ${max} levels (limits.maxJsonDepth), at ${name}${at}`);
  }

  private pathOf(name: string): string {
    if (name === '') return this.path;
    return this.path ? `${this.path}.${name}` : name;
  }

  private invalid(name: string, description: string): undefined {
    this.violation(name, description);
    return undefined;
  }
}

/**
 * `fields` with every proto field name (`message_id`) under its JSON name (`messageId`), as ProtoJSON parsers accept
 * both; the object itself when it has none, which is the usual case. Where both names are given, the JSON name's
 * value is kept and the pair is returned in `givenTwice` (JSON name → proto name).
 */
function withJsonNames(fields: Record<string, unknown>): { fields: Record<string, unknown>; givenTwice?: Map<string, string> } {
  let renamed: Record<string, unknown> | undefined;
  let givenTwice: Map<string, string> | undefined;
  for (const key in fields) {
    if (!key.includes('_')) continue;
    renamed ??= { ...fields };
    const name = jsonNameOf(key);
    if (Object.hasOwn(fields, name)) (givenTwice ??= new Map()).set(name, key);
    else renamed[name] = fields[key];
    delete renamed[key];
  }
  return { fields: renamed ?? fields, givenTwice };
}

/** protoc's JSON name of a field: each underscore dropped and the letter after it capitalized. */
function jsonNameOf(protoName: string): string {
  return protoName.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

function isBase64(value: string): boolean {
  if (!BASE64.test(value)) return false;
  const unpadded = value.replace(/=+$/, '');
  if (unpadded.length !== value.length && value.length % 4 !== 0) return false;
  return unpadded.length % 4 !== 1;
}
