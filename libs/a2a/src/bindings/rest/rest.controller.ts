import { Controller, Delete, Get, Header, HttpCode, Inject, Param, Post, Req, Res, UseFilters, type Type } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { A2A_JSON_MEDIA_TYPE } from '../../a2a.constants.js';
import type { ListTasksResponse, SendMessageResponse, Task } from '../../protocol/a2a.types.js';
import type { HttpRequest } from '../http/http-request.js';
import { RestExceptionFilter } from './rest-exception.filter.js';
import { RestEndpoint } from './rest.endpoint.js';
import { REST_ROUTES, TENANT_SEGMENT } from './rest.routes.js';

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
    constructor(@Inject(RestEndpoint) private readonly rest: RestEndpoint) {}

    @Post(REST_ROUTES.sendMessage)
    @HttpCode(200)
    @Header('Content-Type', A2A_JSON_MEDIA_TYPE)
    sendMessage(@Req() req: HttpRequest, @Param('tenant') tenant: string | undefined): Promise<SendMessageResponse> {
      return this.rest.sendMessage(req, { tenant });
    }

    @Post(REST_ROUTES.sendStreamingMessage)
    sendStreamingMessage(@Req() req: HttpRequest, @Res() res: ServerResponse, @Param('tenant') tenant: string | undefined): Promise<void> {
      return this.rest.sendStreamingMessage(req, res, { tenant });
    }

    /** The proto's verb for SubscribeToTask; the prose says POST (§6 #1), so both are served. */
    @Get(REST_ROUTES.subscribeToTask)
    subscribeToTaskByGet(@Req() req: HttpRequest, @Res() res: ServerResponse, @Param('id') id: string, @Param('tenant') tenant: string | undefined): Promise<void> {
      return this.rest.subscribeToTask(req, res, { id, tenant }, false);
    }

    @Post(REST_ROUTES.subscribeToTask)
    subscribeToTask(@Req() req: HttpRequest, @Res() res: ServerResponse, @Param('id') id: string, @Param('tenant') tenant: string | undefined): Promise<void> {
      return this.rest.subscribeToTask(req, res, { id, tenant }, true);
    }

    @Post(REST_ROUTES.cancelTask)
    @HttpCode(200)
    @Header('Content-Type', A2A_JSON_MEDIA_TYPE)
    cancelTask(@Req() req: HttpRequest, @Param('id') id: string, @Param('tenant') tenant: string | undefined): Promise<Task> {
      return this.rest.cancelTask(req, { id, tenant });
    }

    @Get(REST_ROUTES.listTasks)
    @Header('Content-Type', A2A_JSON_MEDIA_TYPE)
    listTasks(@Req() req: HttpRequest, @Param('tenant') tenant: string | undefined): Promise<ListTasksResponse> {
      return this.rest.listTasks(req, { tenant });
    }

    @Get(REST_ROUTES.getTask)
    @Header('Content-Type', A2A_JSON_MEDIA_TYPE)
    getTask(@Req() req: HttpRequest, @Param('id') id: string, @Param('tenant') tenant: string | undefined): Promise<Task> {
      return this.rest.getTask(req, { id, tenant });
    }

    // The four push-config operations: the card does not declare pushNotifications (R52).
    @Post(REST_ROUTES.pushNotificationConfigs)
    createTaskPushNotificationConfig(@Req() req: HttpRequest, @Param('tenant') tenant: string | undefined): never {
      return this.rest.pushNotificationConfig(req, { tenant });
    }

    @Get(REST_ROUTES.pushNotificationConfigs)
    listTaskPushNotificationConfigs(@Req() req: HttpRequest, @Param('tenant') tenant: string | undefined): never {
      return this.rest.pushNotificationConfig(req, { tenant });
    }

    @Get(REST_ROUTES.pushNotificationConfig)
    getTaskPushNotificationConfig(@Req() req: HttpRequest, @Param('tenant') tenant: string | undefined): never {
      return this.rest.pushNotificationConfig(req, { tenant });
    }

    @Delete(REST_ROUTES.pushNotificationConfig)
    deleteTaskPushNotificationConfig(@Req() req: HttpRequest, @Param('tenant') tenant: string | undefined): never {
      return this.rest.pushNotificationConfig(req, { tenant });
    }

    @Get(REST_ROUTES.extendedAgentCard)
    getExtendedAgentCard(@Req() req: HttpRequest, @Param('tenant') tenant: string | undefined): never {
      return this.rest.extendedAgentCard(req, { tenant });
    }
  }
  return A2aRestController;
}
