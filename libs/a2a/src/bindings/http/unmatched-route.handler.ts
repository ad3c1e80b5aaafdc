import { Inject, Injectable } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import type { ServerResponse } from 'node:http';
import { A2aError } from '../../errors/a2a.error.js';
import { A2A_BINDING_MOUNTS, type BindingMounts } from '../../binding-mounts.js';
import { answerJsonRpcFailure } from '../jsonrpc/jsonrpc-error.response.js';
import { jsonRpcError } from '../jsonrpc/jsonrpc.envelope.js';
import { sendRestError } from '../rest/rest-error.response.js';
import { restMethodsAt } from '../rest/rest.routes.js';
import { bindingOfPath, servedPathOf, type ServedPath } from './binding-paths.js';
import type { HttpRequest } from './http-request.js';
import { sendJson } from './json-response.js';

/**
 * Answers requests on the bindings' paths that no route took, in the binding's error shape instead of Nest's
 * `{"statusCode":404}`: a served path with a method its route does not serve → 405 MethodNotAllowed with `Allow`; any
 * other path under a binding's mount (an unknown operation, a forgotten or extra global prefix) → 404 MethodNotFound,
 * naming where the binding is served. JSON-RPC answers with its error envelope, HTTP+JSON with a google.rpc.Status.
 *
 * Installed by A2aHttpRoutes after every route and before Nest's own not-found handler, so it sees only what no route
 * matched. CORS preflights (`OPTIONS`) pass on, to the app's CORS middleware or Express's default.
 */
@Injectable()
export class UnmatchedRouteHandler {
  readonly middleware = (req: Request, res: Response, next: NextFunction): void => this.handle(req, res, next);

  constructor(
    @Inject(A2A_BINDING_MOUNTS) private readonly mounts: BindingMounts,
    private readonly config: ApplicationConfig,
  ) {}

  private handle(req: Request, res: Response, next: NextFunction): void {
    if (req.method === 'OPTIONS' || res.headersSent || !this.answer(req, res, req.path)) next();
  }

  /** Whether `path` (without the query) falls under a binding's mount: one `answer` takes. */
  claims(path: string): boolean {
    return bindingOfPath(path.toLowerCase(), this.mounts) !== undefined;
  }

  /** Whether `path` (without the query) is one a route of the bindings serves, with some method. */
  serves(path: string): boolean {
    const lower = path.toLowerCase();
    const target = bindingOfPath(lower, this.mounts);
    if (!target) return false;
    const served = servedPathOf(lower, target.binding, this.mounts, this.config.getGlobalPrefix());
    return (
      served.kind === 'jsonrpc-endpoint' || (served.kind === 'rest-route' && restMethodsAt(served.route).length > 0)
    );
  }

  /**
   * Answers a request no route took, when `path` (without the query) falls under a binding's mount: 405 with `Allow`
   * for a served path and a method its route does not serve, 404 otherwise. False when the path is not the bindings'.
   */
  answer(req: HttpRequest, res: ServerResponse, path: string): boolean {
    const lower = path.toLowerCase();
    const target = bindingOfPath(lower, this.mounts);
    if (!target) return false;
    const served = servedPathOf(lower, target.binding, this.mounts, this.config.getGlobalPrefix());
    const method = req.method ?? 'GET';
    if (served.kind === 'jsonrpc-endpoint' && method !== 'POST') {
      res.setHeader('Allow', 'POST');
      answerJsonRpcFailure(
        req,
        res,
        new A2aError('MethodNotAllowed', `JSON-RPC requests are sent with POST, not ${method}`),
      );
    } else if (target.binding === 'jsonrpc') {
      const error = new A2aError(
        'MethodNotFound',
        notServedMessage('JSON-RPC endpoint', path, served, "the agent's is at"),
      );
      // The HTTP status says the path is wrong, the code is the envelope's closest; the body was never read as a call, so no id.
      sendJson(res, 404, 'application/json', JSON.stringify(jsonRpcError(null, error)));
    } else {
      const methods = served.kind === 'rest-route' ? restMethodsAt(served.route) : [];
      // Express answers HEAD with the GET route, so HEAD on a GET path never gets here.
      if (methods.length > 0 && !methods.includes(method === 'HEAD' ? 'GET' : method)) {
        res.setHeader('Allow', methods.join(', '));
        sendRestError(
          res,
          new A2aError('MethodNotAllowed', `${path} is served with ${methods.join(' or ')}, not ${method}`),
        );
      } else {
        sendRestError(
          res,
          new A2aError(
            'MethodNotFound',
            notServedMessage('HTTP+JSON operation', path, served, 'the agent serves them under'),
          ),
        );
      }
    }
    return true;
  }
}

/** A 404's message; when the path only looks like the binding's, it says where the binding is served. */
function notServedMessage(what: string, path: string, served: ServedPath, servedAtPhrase: string): string {
  const message = `No A2A ${what} is served at ${path}`;
  return served.kind === 'elsewhere' ? `${message}: ${servedAtPhrase} ${served.servedAt}` : message;
}
