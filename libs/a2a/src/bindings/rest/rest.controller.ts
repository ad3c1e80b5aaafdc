import { Controller, Delete, Get, Header, HttpCode, Inject, Param, Post, Req, Res, UseFilters, type Type } from '@nestjs/common';
import type { Request, Response } from 'express';
import { tap, type Observable } from 'rxjs';
import { A2A_JSON_MEDIA_TYPE } from '../../a2a.constants.js';
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
} from '../../protocol/request.validator.js';
import { httpCallContext } from '../http/http-call-context.js';
import { DEFAULT_MAX_BODY_BYTES, readJsonBody } from '../http/request-body.js';
import { writeSse } from '../http/sse.writer.js';
import { RestExceptionFilter, restErrorBody } from './rest-exception.filter.js';
import { GET_TASK_QUERY, LIST_TASKS_QUERY, parseRestQuery } from './rest-query.parser.js';
import { REST_ROUTES, TENANT_SEGMENT } from './rest.routes.js';

const DEFAULT_SSE_HEARTBEAT_MS = 15_000;

/** Values taken from the URL path, which the request message also has as fields (§11.5). */
type PathFields = Readonly<Record<string, string | undefined>>;

/**
 * The HTTP+JSON binding (§11) under `prefix` (`''` = the app root): every operation of CHECKLIST §1, each also below a
 * `/{tenant}` segment. Nest registers all routes of the first controller path before those of the second, so a fixed
 * route always wins over a tenant one (`GET /tasks/tasks` is task "tasks", §6 #22); within a path, the routes with a
 * literal `:verb` come before `tasks/:id`, so `tasks/x:subscribe` is never read as task id `x:subscribe`. (Nest's
 * `specificity` route resolution, if the app turns it on, ranks literal segments first and keeps both properties.)
 * Responses are the bare response messages, as `application/a2a+json` with status 200.
 */
export function createRestController(prefix: string): Type {
  @Controller([prefix, `${prefix}/${TENANT_SEGMENT}`])
  @UseFilters(RestExceptionFilter)
  class A2aRestController {
    private readonly maxBodyBytes: number;
    private readonly heartbeatMs: number;

    constructor(
      private readonly engine: A2aEngine,
      @Inject(A2A_MODULE_OPTIONS) options: A2aModuleOptions,
    ) {
      this.maxBodyBytes = options.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
      this.heartbeatMs = options.sseHeartbeatMs ?? DEFAULT_SSE_HEARTBEAT_MS;
    }

    @Post(REST_ROUTES.sendMessage)
    @HttpCode(200)
    @Header('Content-Type', A2A_JSON_MEDIA_TYPE)
    async sendMessage(@Req() req: Request, @Param('tenant') tenant: string | undefined): Promise<SendMessageResponse> {
      const { request, call } = this.decode(req, await this.body(req), { tenant }, validateSendMessageRequest);
      return this.engine.sendMessage(request, call);
    }

    @Post(REST_ROUTES.sendStreamingMessage)
    async sendStreamingMessage(@Req() req: Request, @Res() res: Response, @Param('tenant') tenant: string | undefined): Promise<void> {
      const { request, call } = this.decode(req, await this.body(req), { tenant }, validateSendMessageRequest);
      return this.stream(req, res, this.engine.sendStreamingMessage(request, call));
    }

    /** The proto's verb for SubscribeToTask; the prose says POST (§6 #1), so both are served. */
    @Get(REST_ROUTES.subscribeToTask)
    subscribeToTaskByGet(@Req() req: Request, @Res() res: Response, @Param('id') id: string, @Param('tenant') tenant: string | undefined): Promise<void> {
      const { request, call } = this.decode(req, undefined, { id, tenant }, validateSubscribeToTaskRequest);
      return this.stream(req, res, this.engine.subscribeToTask(request, call));
    }

    @Post(REST_ROUTES.subscribeToTask)
    async subscribeToTask(@Req() req: Request, @Res() res: Response, @Param('id') id: string, @Param('tenant') tenant: string | undefined): Promise<void> {
      const { request, call } = this.decode(req, await this.body(req), { id, tenant }, validateSubscribeToTaskRequest);
      return this.stream(req, res, this.engine.subscribeToTask(request, call));
    }

    /** The body may be `{}`, `{"metadata":…}`, or absent (the a2a-js client POSTs nothing). */
    @Post(REST_ROUTES.cancelTask)
    @HttpCode(200)
    @Header('Content-Type', A2A_JSON_MEDIA_TYPE)
    async cancelTask(@Req() req: Request, @Param('id') id: string, @Param('tenant') tenant: string | undefined): Promise<Task> {
      const { request, call } = this.decode(req, await this.body(req), { id, tenant }, validateCancelTaskRequest);
      return this.engine.cancelTask(request, call);
    }

    @Get(REST_ROUTES.listTasks)
    @Header('Content-Type', A2A_JSON_MEDIA_TYPE)
    listTasks(@Req() req: Request, @Param('tenant') tenant: string | undefined): Promise<ListTasksResponse> {
      const { request, call } = this.decode(req, parseRestQuery(req.query, LIST_TASKS_QUERY), { tenant }, validateListTasksRequest);
      return this.engine.listTasks(request, call);
    }

    @Get(REST_ROUTES.getTask)
    @Header('Content-Type', A2A_JSON_MEDIA_TYPE)
    getTask(@Req() req: Request, @Param('id') id: string, @Param('tenant') tenant: string | undefined): Promise<Task> {
      const { request, call } = this.decode(req, parseRestQuery(req.query, GET_TASK_QUERY), { id, tenant }, validateGetTaskRequest);
      return this.engine.getTask(request, call);
    }

    // The four push-config operations: the card does not declare pushNotifications (R52).
    @Post(REST_ROUTES.pushNotificationConfigs)
    createTaskPushNotificationConfig(@Req() req: Request, @Param('tenant') tenant: string | undefined): never {
      httpCallContext(req, 'HTTP+JSON', tenant ?? '');
      return this.engine.pushNotificationsUnsupported();
    }

    @Get(REST_ROUTES.pushNotificationConfigs)
    listTaskPushNotificationConfigs(@Req() req: Request, @Param('tenant') tenant: string | undefined): never {
      httpCallContext(req, 'HTTP+JSON', tenant ?? '');
      return this.engine.pushNotificationsUnsupported();
    }

    @Get(REST_ROUTES.pushNotificationConfig)
    getTaskPushNotificationConfig(@Req() req: Request, @Param('tenant') tenant: string | undefined): never {
      httpCallContext(req, 'HTTP+JSON', tenant ?? '');
      return this.engine.pushNotificationsUnsupported();
    }

    @Delete(REST_ROUTES.pushNotificationConfig)
    deleteTaskPushNotificationConfig(@Req() req: Request, @Param('tenant') tenant: string | undefined): never {
      httpCallContext(req, 'HTTP+JSON', tenant ?? '');
      return this.engine.pushNotificationsUnsupported();
    }

    @Get(REST_ROUTES.extendedAgentCard)
    getExtendedAgentCard(@Req() req: Request, @Param('tenant') tenant: string | undefined): never {
      httpCallContext(req, 'HTTP+JSON', tenant ?? '');
      return this.engine.extendedAgentCardUnsupported();
    }

    private body(req: Request): Promise<unknown> {
      return readJsonBody(req, this.maxBodyBytes);
    }

    /**
     * The validated request and its call context. The version is checked first, so a v0.3 client learns that rather
     * than which of its fields v1.0 refuses.
     */
    private decode<T extends { tenant?: string }>(
      req: Request,
      input: unknown,
      pathFields: PathFields,
      validate: (input: unknown) => T,
    ): { request: T; call: A2aCallContext } {
      const call = httpCallContext(req, 'HTTP+JSON', pathFields.tenant ?? '');
      const request = validate(withPathFields(input, pathFields));
      return { request, call: { ...call, tenant: request.tenant ?? '' } };
    }

    /**
     * SSE frames are bare StreamResponses (§11.7); a2a-js clients spot a mid-stream error only by `event: error`. The
     * returned promise settles once the stream has started (or ended, or the client left); an error before the first
     * event rejects it, so the handler throws and the error leaves through the filter as a plain response (§6 #17).
     */
    private stream(req: Request, res: Response, events$: Observable<StreamResponse>): Promise<void> {
      return new Promise((resolve, reject) => {
        res.once('close', () => resolve());
        writeSse(req, res, events$.pipe(tap({ next: () => resolve(), complete: () => resolve() })), {
          frame: (event) => JSON.stringify(event),
          errorFrame: (error) => `event: error\ndata: ${JSON.stringify(restErrorBody(toA2aError(error)))}`,
          errorBeforeStart: reject,
          heartbeatMs: this.heartbeatMs,
        });
      });
    }
  }
  return A2aRestController;
}

/**
 * The request message: the body (or decoded query) plus the values of the path. A body that names another tenant or
 * task than its path is refused rather than silently overridden (§6 #22). A non-object body goes to the validator as
 * is, which refuses it.
 */
function withPathFields(input: unknown, pathFields: PathFields): unknown {
  const body = input ?? {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const merged: Record<string, unknown> = { ...body };
  const violations: FieldViolation[] = [];
  for (const [field, value] of Object.entries(pathFields)) {
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
