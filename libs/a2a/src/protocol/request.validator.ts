import { A2aError } from '../errors/a2a.error.js';
import { DEFAULT_MAX_JSON_DEPTH } from '../json/json-depth.js';
import type {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
} from './a2a.types.js';
import { assign, FieldReader, isPlainObject, type ReadState } from './field.reader.js';
import { readConfiguration, readMessage, readPushConfig, tenantOf } from './request-messages.readers.js';

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

export function validateSendMessageRequest(
  input: unknown,
  limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS,
): SendMessageRequest {
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

export function validateGetTaskRequest(
  input: unknown,
  limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS,
): GetTaskRequest {
  return validate(input, limits, (r) => {
    const request: GetTaskRequest = { ...tenantOf(r), id: r.id('id') };
    assign(request, 'historyLength', r.integer('historyLength', { min: 0 }));
    return request;
  });
}

export function validateListTasksRequest(
  input: unknown,
  limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS,
): ListTasksRequest {
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

export function validateCancelTaskRequest(
  input: unknown,
  limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS,
): CancelTaskRequest {
  return validate(input, limits, (r) => {
    const request: CancelTaskRequest = { ...tenantOf(r), id: r.id('id') };
    assign(request, 'metadata', r.struct('metadata'));
    return request;
  });
}

export function validateSubscribeToTaskRequest(
  input: unknown,
  limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS,
): SubscribeToTaskRequest {
  return validate(input, limits, (r) => ({ ...tenantOf(r), id: r.id('id') }));
}

/**
 * CreateTaskPushNotificationConfig's request is the config itself. `taskId` is required here (the task to watch; the
 * REST binding fills it from the path), unlike in `SendMessageConfiguration`, where the task does not exist yet.
 */
export function validateTaskPushNotificationConfig(
  input: unknown,
  limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS,
): TaskPushNotificationConfig {
  return validate(input, limits, (r) => readPushConfig(r, { taskIdRequired: true }));
}

export function validateGetTaskPushNotificationConfigRequest(
  input: unknown,
  limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS,
): GetTaskPushNotificationConfigRequest {
  return validate(input, limits, (r) => ({ ...tenantOf(r), taskId: r.id('taskId'), id: r.id('id') }));
}

export function validateDeleteTaskPushNotificationConfigRequest(
  input: unknown,
  limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS,
): DeleteTaskPushNotificationConfigRequest {
  return validateGetTaskPushNotificationConfigRequest(input, limits);
}

export function validateListTaskPushNotificationConfigsRequest(
  input: unknown,
  limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS,
): ListTaskPushNotificationConfigsRequest {
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

/** Reads `input` with `read`, then throws InvalidParams with every violation recorded, if any. */
function validate<T>(input: unknown, limits: ValidationLimits, read: (reader: FieldReader) => T): T {
  if (!isPlainObject(input)) {
    throw A2aError.invalidParams([{ field: '', description: 'The request must be a JSON object' }]);
  }
  const state: ReadState = { violations: [], maxJsonDepth: limits.maxJsonDepth };
  const result = read(new FieldReader(input, '', state));
  if (state.violations.length > 0) throw A2aError.invalidParams(state.violations);
  return result;
}
