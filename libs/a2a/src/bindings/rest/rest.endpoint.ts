import { Inject, Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { Observable } from 'rxjs';
import { A2A_MODULE_OPTIONS } from '../../a2a-module-definition.js';
import type { A2aModuleOptions } from '../../a2a-module.options.js';
import type { A2aCallContext } from '../../context/call-context.js';
import { A2aEngine } from '../../engine/a2a.engine.js';
import { A2aError, type FieldViolation } from '../../errors/a2a.error.js';
import { toA2aError } from '../../errors/to-a2a-error.js';
import type { ListTasksResponse, SendMessageResponse, StreamResponse, Task } from '../../protocol/a2a.types.js';
import {
  validateCancelTaskRequest,
  validateGetTaskRequest,
  validateListTasksRequest,
  validateSendMessageRequest,
  validateSubscribeToTaskRequest,
  type ValidationLimits,
} from '../../protocol/request.validator.js';
import { httpCallContext } from '../http/http-call-context.js';
import type { HttpRequest } from '../http/http-request.js';
import { DEFAULT_MAX_BODY_BYTES, readJsonBody } from '../http/request-body.js';
import { DEFAULT_SSE_HEARTBEAT_MS, writeSse } from '../http/sse.writer.js';
import { streamResponseJson } from '../http/stream-response.json.js';
import { restErrorBody } from './rest-exception.filter.js';
import { GET_TASK_QUERY, LIST_TASKS_QUERY, parseRestQuery } from './rest-query.parser.js';

/** Values taken from the URL path, which the request message also has as fields (§11.5). */
export interface RestPathFields {
  tenant?: string;
  id?: string;
}

/**
 * The operations of the HTTP+JSON binding (§11), from an HTTP request (and its path values) to the response message or
 * the SSE stream: shared by the Nest controller and the direct dispatcher. Failures are thrown, for the caller to
 * answer with `sendRestError`.
 */
@Injectable()
export class RestEndpoint {
  private readonly maxBodyBytes: number;
  private readonly heartbeatMs: number;

  constructor(
    @Inject(A2aEngine) private readonly engine: A2aEngine,
    @Inject(A2A_MODULE_OPTIONS) options: A2aModuleOptions,
  ) {
    this.maxBodyBytes = options.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.heartbeatMs = options.sseHeartbeatMs ?? DEFAULT_SSE_HEARTBEAT_MS;
  }

  async sendMessage(req: HttpRequest, path: RestPathFields): Promise<SendMessageResponse> {
    const { request, call } = this.decode(req, await this.body(req), path, validateSendMessageRequest);
    return this.engine.sendMessage(request, call);
  }

  async sendStreamingMessage(req: HttpRequest, res: ServerResponse, path: RestPathFields): Promise<void> {
    const { request, call } = this.decode(req, await this.body(req), path, validateSendMessageRequest);
    return this.stream(req, res, this.engine.sendStreamingMessage(request, call));
  }

  /** `withBody`: the POST form; the GET form (the proto's verb, §6 #1) has none. */
  async subscribeToTask(req: HttpRequest, res: ServerResponse, path: RestPathFields, withBody: boolean): Promise<void> {
    const { request, call } = this.decode(req, withBody ? await this.body(req) : undefined, path, validateSubscribeToTaskRequest);
    return this.stream(req, res, this.engine.subscribeToTask(request, call));
  }

  /** The body may be `{}`, `{"metadata":…}`, or absent (the a2a-js client POSTs nothing). */
  async cancelTask(req: HttpRequest, path: RestPathFields): Promise<Task> {
    const { request, call } = this.decode(req, await this.body(req), path, validateCancelTaskRequest);
    return this.engine.cancelTask(request, call);
  }

  listTasks(req: HttpRequest, path: RestPathFields): Promise<ListTasksResponse> {
    const { request, call } = this.decode(req, parseRestQuery(req.query ?? {}, LIST_TASKS_QUERY), path, validateListTasksRequest);
    return this.engine.listTasks(request, call);
  }

  getTask(req: HttpRequest, path: RestPathFields): Promise<Task> {
    const { request, call } = this.decode(req, parseRestQuery(req.query ?? {}, GET_TASK_QUERY), path, validateGetTaskRequest);
    return this.engine.getTask(request, call);
  }

  /** The four push-config operations: the card does not declare pushNotifications (R52). */
  pushNotificationConfig(req: HttpRequest, path: RestPathFields): never {
    httpCallContext(req, 'HTTP+JSON', path.tenant ?? '');
    return this.engine.pushNotificationsUnsupported();
  }

  extendedAgentCard(req: HttpRequest, path: RestPathFields): never {
    httpCallContext(req, 'HTTP+JSON', path.tenant ?? '');
    return this.engine.extendedAgentCardUnsupported();
  }

  private body(req: HttpRequest): Promise<unknown> {
    return readJsonBody(req, this.maxBodyBytes);
  }

  /**
   * The validated request and its call context. The version is checked first, so a v0.3 client learns that rather
   * than which of its fields v1.0 refuses.
   */
  private decode<T extends { tenant?: string }>(
    req: HttpRequest,
    input: unknown,
    path: RestPathFields,
    validate: (input: unknown, limits: ValidationLimits) => T,
  ): { request: T; call: A2aCallContext } {
    const call = httpCallContext(req, 'HTTP+JSON', path.tenant ?? '');
    const request = validate(withPathFields(input, path), this.engine.validationLimits);
    return { request, call: { ...call, tenant: request.tenant ?? '' } };
  }

  /**
   * SSE frames are bare StreamResponses (§11.7); a2a-js clients spot a mid-stream error only by `event: error`. The
   * returned promise settles once the stream has started (or ended, or the client left); an error before the first
   * event rejects it, so it is answered as a plain response (§6 #17).
   */
  private stream(req: HttpRequest, res: ServerResponse, events$: Observable<StreamResponse>): Promise<void> {
    return new Promise((resolve, reject) => {
      res.once('close', () => resolve());
      writeSse(req, res, events$, {
        frame: streamResponseJson,
        errorFrame: (error) => `event: error\ndata: ${JSON.stringify(restErrorBody(toA2aError(error)))}`,
        errorBeforeStart: reject,
        started: () => resolve(),
        heartbeatMs: this.heartbeatMs,
      });
    });
  }
}

/**
 * The request message: the body (or decoded query) plus the values of the path. A body that names another tenant or
 * task than its path is refused rather than silently overridden (§6 #22). A non-object body goes to the validator as
 * is, which refuses it.
 */
function withPathFields(input: unknown, path: RestPathFields): unknown {
  const body = input ?? {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const merged: Record<string, unknown> = { ...body };
  const violations: FieldViolation[] = [];
  for (const [field, value] of Object.entries(path)) {
    if (value === undefined) continue;
    const given = merged[field];
    if (given !== undefined && given !== null && given !== '' && given !== value) {
      violations.push({ field, description: `Differs from the ${field} in the URL path ("${value}")` });
    }
    merged[field] = value;
  }
  if (violations.length > 0) throw A2aError.invalidParams(violations);
  return merged;
}
