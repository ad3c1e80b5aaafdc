import { Inject, Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { A2aError } from '../../errors/a2a.error.js';
import { A2A_BINDING_MOUNTS, type BindingMounts } from '../../binding-mounts.js';
import { answerJsonRpcFailure } from '../jsonrpc/jsonrpc-error.response.js';
import { sendRestError } from '../rest/rest-error.response.js';
import { restMethodsAt } from '../rest/rest.routes.js';
import { bindingOfPath } from './binding-paths.js';
import type { HttpRequest } from './http-request.js';
import type { ServerResponse } from 'node:http';

/**
 * Answers requests on the bindings' paths that no route took, in the binding's error shape instead of Nest's
 * `{"statusCode":404}`: a method a route does not serve → 405 MethodNotAllowed with `Allow`; a path that is no
 * operation → 404 MethodNotFound (HTTP+JSON). JSON-RPC is served by POST only, so anything else there is a 405 with a
 * JSON-RPC envelope.
 *
 * Installed by A2aHttpRoutes after every route and before Nest's own not-found handler, so it sees only what no route
 * matched. CORS preflights (`OPTIONS`) pass on, to the app's CORS middleware or Express's default.
 */
@Injectable()
export class UnmatchedRouteHandler {
  readonly middleware = (req: Request, res: Response, next: NextFunction): void => this.handle(req, res, next);

  constructor(@Inject(A2A_BINDING_MOUNTS) private readonly mounts: BindingMounts) {}

  private handle(req: Request, res: Response, next: NextFunction): void {
    if (req.method === 'OPTIONS' || res.headersSent || !this.answer(req, res, req.path)) next();
  }

  /**
   * Answers a request no route took, when `path` (without the query) is one of the bindings': 405 with `Allow` for a
   * method its route does not serve, 404 for a path that is no operation. False when the path is not the bindings'.
   */
  answer(req: HttpRequest, res: ServerResponse, path: string): boolean {
    const target = bindingOfPath(path.toLowerCase(), this.mounts);
    if (!target) return false;
    if (target.binding === 'jsonrpc') {
      res.setHeader('Allow', 'POST');
      answerJsonRpcFailure(
        req,
        res,
        new A2aError('MethodNotAllowed', `JSON-RPC requests are sent with POST, not ${req.method}`),
      );
      return true;
    }
    const methods = restMethodsAt(target.route);
    if (methods.length === 0) {
      sendRestError(res, new A2aError('MethodNotFound', `No HTTP+JSON operation is served at ${path}`));
      return true;
    }
    res.setHeader('Allow', methods.join(', '));
    sendRestError(
      res,
      new A2aError('MethodNotAllowed', `${path} is served with ${methods.join(' or ')}, not ${req.method}`),
    );
    return true;
  }
}
