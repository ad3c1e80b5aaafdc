import { Inject, Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { Observable } from 'rxjs';
import { A2A_JSON_MEDIA_TYPE } from '../../a2a.constants.js';
import { A2A_MODULE_OPTIONS } from '../../a2a-module-definition.js';
import type { A2aModuleOptions } from '../../a2a-module.options.js';
import type { A2aInvocation } from '../../context/a2a-invocation.js';
import { A2aEngine } from '../../engine/a2a.engine.js';
import { A2aError, type FieldViolation } from '../../errors/a2a.error.js';
import { toA2aError } from '../../errors/to-a2a-error.js';
import { UnexpectedErrorReporter } from '../../errors/unexpected-error.reporter.js';
import { ExtensionRegistry } from '../../extensions/extension.registry.js';
import type { StreamResponse } from '../../protocol/a2a.types.js';
import type { StreamingResult } from '../a2a-operations.host.js';
import { newInvocation } from '../new-invocation.js';
import { A2aHttpPipeline } from '../http/http-pipeline.js';
import { httpProtocolContext } from '../http/http-protocol-context.js';
import type { HttpRequest } from '../http/http-request.js';
import { markPrivate, sendJson } from '../http/json-response.js';
import { DEFAULT_MAX_BODY_BYTES, readJsonBody } from '../http/request-body.js';
import { echoExtensions, extensionsHeaders } from '../http/extensions-header.js';
import { DEFAULT_SSE_HEARTBEAT_MS, writeSse } from '../http/sse.writer.js';
import { seqOf } from '../../engine/stream-seq.js';
import { streamResponseJson } from '../http/stream-response.json.js';
import { restErrorBody, sendRestError } from './rest-error.response.js';
import { parseRestQuery } from './rest-query.parser.js';
import type { RestDialect, RestPathValues, RestRoute } from './rest.routes.js';

/**
 * The HTTP+JSON binding (§11): one route from its request to its answer, for the routes registered on the HTTP
 * adapter and for the direct dispatcher alike. The request message is the body (or the decoded query) plus the path's
 * values; once validated it runs through the Nest pipeline (A2aHttpPipeline); the answer is the bare response message
 * as `application/a2a+json` with status 200, an SSE stream, or a google.rpc.Status.
 */
@Injectable()
export class RestEndpoint {
  private readonly maxBodyBytes: number;
  private readonly heartbeatMs: number;

  constructor(
    @Inject(A2aEngine) private readonly engine: A2aEngine,
    @Inject(A2A_MODULE_OPTIONS) options: A2aModuleOptions,
    private readonly pipeline: A2aHttpPipeline,
    private readonly errors: UnexpectedErrorReporter,
    private readonly extensions: ExtensionRegistry,
  ) {
    this.maxBodyBytes = options.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.heartbeatMs = options.sseHeartbeatMs ?? DEFAULT_SSE_HEARTBEAT_MS;
  }

  /** Settles once the answer is written, or (for a stream) once it has started; never rejects. */
  async serve(route: RestRoute, req: HttpRequest, res: ServerResponse, values: RestPathValues): Promise<void> {
    let invocation: A2aInvocation | undefined;
    try {
      invocation = await this.decode(route, req, values);
      const result = await this.pipeline.run(invocation, req, res);
      if (route.operation.streaming)
        return await this.stream(route, req, res, (result as StreamingResult).events, invocation.extensions);
      if (route.dialect) return sendTranslated(route.dialect, res, result, invocation.extensions);
      if (invocation.operation === 'GetExtendedAgentCard') markPrivate(res);
      const text = JSON.stringify(result);
      echoExtensions(res, invocation.extensions);
      sendJson(res, 200, A2A_JSON_MEDIA_TYPE, text);
    } catch (error) {
      if (this.pipeline.answeredByFilter(error, invocation, req, res)) return;
      if (route.dialect) route.dialect.sendError(res, error);
      else sendRestError(res, error);
      this.errors.report(error, invocation);
    }
  }

  /**
   * The invocation: input read first (a body still on the socket must be drained before any answer), then the
   * version, so a v0.3 client learns that rather than which of its fields v1.0 refuses, then the request validated,
   * then the extensions the call activates (a required one missing is refused before the app's guards run).
   */
  private async decode(route: RestRoute, req: HttpRequest, values: RestPathValues): Promise<A2aInvocation> {
    const input =
      route.input === 'body'
        ? await readJsonBody(req, this.maxBodyBytes)
        : route.input === 'none'
          ? undefined
          : parseRestQuery(req.query ?? {}, route.input);
    const protocol = route.dialect ? route.dialect.protocol(req) : httpProtocolContext(req);
    const message = route.dialect
      ? route.dialect.request(input, values, req.query)
      : withPathFields(input, pathFieldsOf(route, values));
    const request = route.operation.validate(message, this.engine.validationLimits);
    const extensions = this.extensions.negotiate(protocol.extensions);
    return newInvocation(route.operation, 'HTTP+JSON', request, { version: protocol.version, extensions }, req.headers);
  }

  /**
   * SSE frames are bare StreamResponses (§11.7); a2a-js clients spot a mid-stream error only by `event: error`. The
   * returned promise settles once the stream has started (or ended, or the client left); an error before the first
   * event rejects it, so it is answered as a plain response.
   */
  private stream(
    route: RestRoute,
    req: HttpRequest,
    res: ServerResponse,
    events$: Observable<StreamResponse>,
    extensions: readonly string[],
  ): Promise<void> {
    const dialect = route.dialect;
    return new Promise((resolve, reject) => {
      res.once('close', () => resolve());
      writeSse<StreamResponse>(req, res, events$, {
        frame: dialect ? (event) => JSON.stringify(dialect.event(event)) : streamResponseJson,
        errorFrame: dialect
          ? dialect.errorFrame
          : (error) => `event: error\ndata: ${JSON.stringify(restErrorBody(toA2aError(error)))}`,
        id: seqOf,
        errorBeforeStart: reject,
        started: () => resolve(),
        headers: dialect ? dialect.extensionsHeaders(extensions) : extensionsHeaders(extensions),
        heartbeatMs: this.heartbeatMs,
      });
    });
  }
}

/** Another version's answer (option `compat`): translated, with that version's status and extensions header. */
function sendTranslated(
  dialect: RestDialect,
  res: ServerResponse,
  result: unknown,
  extensions: readonly string[],
): void {
  const { status, body } = dialect.result(result);
  for (const [name, value] of Object.entries(dialect.extensionsHeaders(extensions) ?? {})) res.setHeader(name, value);
  if (body === undefined) {
    res.statusCode = status;
    res.end();
    return;
  }
  sendJson(res, status, 'application/json', JSON.stringify(body));
}

/** The request fields the path gives: `tenant` on every route, and the route's own (`id`, or `taskId` and `id`). */
function pathFieldsOf(route: RestRoute, values: RestPathValues): Record<string, string | undefined> {
  const fields: Record<string, string | undefined> = { tenant: values.tenant };
  for (const [parameter, field] of Object.entries(route.pathFields)) fields[field] = values[parameter];
  return fields;
}

/**
 * The request message: the body (or decoded query) plus the values of the path. A body that names another tenant or
 * task than its path is refused rather than silently overridden. A non-object body goes to the validator as
 * is, which refuses it.
 */
function withPathFields(input: unknown, path: Record<string, string | undefined>): unknown {
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
