import { HttpException, Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { A2aError } from '../../errors/a2a.error.js';
import { toA2aError } from '../../errors/to-a2a-error.js';
import { A2A_BINDING_MOUNTS, type BindingMounts } from '../../binding-mounts.js';
import { httpStatusOf, jsonRpcError } from '../jsonrpc/jsonrpc.envelope.js';
import { sendRestError } from '../rest/rest-error.response.js';
import { bindingOfPath } from './binding-paths.js';
import { isJsonMediaType } from './json-media-type.js';
import { sendJson } from './json-response.js';
import { UnmatchedRouteHandler } from './unmatched-route.handler.js';

/**
 * Answers errors raised before any A2A route runs (the app-wide body parser failing on malformed or oversized
 * `application/json`, or an Express middleware of the app calling `next(error)`) in the error shape of the binding the
 * request was for, so a JSON-RPC client still gets a JSON-RPC error and a REST client a google.rpc.Status.
 *
 * It is an Express error middleware rather than a global exception filter: Nest hands such errors to global filters
 * only, and a catch-all global filter of the module would also take precedence over the app's own global filters on
 * every route. Installed by A2aHttpRoutes after the routes and before Nest's own error handler, so it sees these
 * errors first and passes on every request that is not for a binding.
 *
 * Which requests are a binding's: see `bindingOfPath`. One for a path no route serves gets the binding's 404 instead
 * (UnmatchedRouteHandler), as it would without the error.
 */
@Injectable()
export class PreRoutingErrorHandler {
  /** The error middleware installed in Express, by which the direct dispatcher recognizes it in the stack. */
  readonly middleware = (error: unknown, req: Request, res: Response, next: NextFunction): void =>
    this.handle(error, req, res, next);

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(A2A_BINDING_MOUNTS) private readonly mounts: BindingMounts,
    private readonly unmatched: UnmatchedRouteHandler,
  ) {}

  /** Answers an error raised before the binding's handler ran (e.g. by the body parser) in that binding's shape. */
  answer(error: unknown, binding: 'jsonrpc' | 'rest', req: IncomingMessage, res: ServerResponse): void {
    if (binding === 'jsonrpc') sendJsonRpcError(res, this.protocolError(error, req));
    else sendRestError(res, this.protocolError(error, req));
  }

  private handle(error: unknown, req: Request, res: Response, next: NextFunction): void {
    if (res.headersSent) return next(error);
    const target = bindingOfPath(req.path.toLowerCase(), this.mounts);
    if (!target) return next(error);
    // A body sent to a path no route serves (a forgotten global prefix): that the path is wrong is the answer.
    if (!this.unmatched.serves(req.path)) return void this.unmatched.answer(req, res, req.path);
    this.answer(error, target.binding, req, res);
  }

  /**
   * The protocol error behind a raw Express error, mapped first as Nest's own handler would (http-errors keep their
   * status). Unparsable JSON is a parse error (JSON-RPC -32700), not a generic bad request. A body parser failing on a
   * POST the binding would refuse by its Content-Type (a form too large for the urlencoded parser) gets that refusal.
   */
  private protocolError(error: unknown, req: IncomingMessage): A2aError {
    const type = (error as { type?: unknown } | undefined)?.type;
    if (typeof type === 'string' && req.method === 'POST' && !isJsonMediaType(req.headers['content-type']))
      return new A2aError('UnsupportedMediaType');
    if (type === 'entity.parse.failed') return new A2aError('ParseError');
    const mapped = this.adapterHost.httpAdapter.mapException(error);
    return toA2aError(mapped instanceof HttpException ? mapped : error);
  }
}

/** A JSON-RPC error with `id: null`, since the request's id was never read; its HTTP status as the binding sets it. */
function sendJsonRpcError(res: ServerResponse, error: A2aError): void {
  sendJson(res, httpStatusOf(error), 'application/json', JSON.stringify(jsonRpcError(null, error)));
}
