import { Inject, Injectable, type Type } from '@nestjs/common';
import { ExternalContextCreator } from '@nestjs/core';
import type { ServerResponse } from 'node:http';
import { A2A_INVOCATION, type A2aInvocation } from '../../context/a2a-invocation.js';
import { A2A_OPERATIONS_HOST } from '../a2a-operations.host.js';
import { A2A_OPERATIONS, OPERATIONS_BY_NAME } from '../a2a-operations.js';
import { A2aExceptionFilters } from './a2a-exception-filters.js';
import { A2aObservability } from '../../observability/a2a-observability.js';
import type { HttpRequest } from './http-request.js';
import { httpViewsOf } from './http-views.js';

type Handler = (req: HttpRequest, res: ServerResponse) => Promise<unknown>;

/**
 * Runs an A2A operation on the HTTP bindings as a Nest handler: through the app's global guards and interceptors and
 * those given to the module, with `context.getType()` `'http'` and the request and response as its arguments (so
 * guards written for `switchToHttp()` work), after the binding has decoded and validated the request. Built with
 * Nest's ExternalContextCreator, the documented way to run the pipeline around a handler that is not a route (as
 * @nestjs/graphql does). Errors propagate to the binding, which answers them in its own shape.
 */
@Injectable()
export class A2aHttpPipeline {
  private handlers: ReadonlyMap<string, Handler> | undefined;

  constructor(
    private readonly contexts: ExternalContextCreator,
    @Inject(A2A_OPERATIONS_HOST) private readonly host: Record<string, (...args: unknown[]) => unknown>,
    private readonly filters: A2aExceptionFilters,
    private readonly observability: A2aObservability,
  ) {}

  /**
   * Offers an error of the call to the module's exception filters (option `filters`), with the arguments the guards
   * got; true when one took it and answered.
   */
  answeredByFilter(
    error: unknown,
    invocation: A2aInvocation | undefined,
    req: HttpRequest,
    res: ServerResponse,
  ): boolean {
    if (!this.filters.any) return false;
    const handlerName = invocation && OPERATIONS_BY_NAME.get(invocation.operation)?.handlerName;
    const handler = handlerName ? this.host[handlerName] : this.host.constructor;
    return this.filters.handle(
      error,
      { type: 'http', args: httpViewsOf(req, res) },
      this.host.constructor as Type,
      handler,
    );
  }

  /**
   * The operation's result, or `{ events }` for a stream, once the pipeline let the call through; all of it (guards
   * included, and a stream until its end) inside the operation's span.
   */
  run(invocation: A2aInvocation, req: HttpRequest, res: ServerResponse): Promise<unknown> {
    const [request, response] = httpViewsOf(req, res);
    // On the object the guards get (Fastify's request, or a view of node's), which is also the handler's carrier.
    (request as { [A2A_INVOCATION]?: A2aInvocation })[A2A_INVOCATION] = invocation;
    const handler = this.handlerOf(invocation.operation);
    return this.observability.operation(invocation, () => handler(request, response));
  }

  /** Made at the first call, when the app has registered every global enhancer (main.ts runs before listen()). */
  private handlerOf(operation: string): Handler {
    this.handlers ??= new Map(
      A2A_OPERATIONS.map((op): [string, Handler] => [
        op.name,
        this.contexts.create(
          this.host as never,
          this.host[op.handlerName],
          op.handlerName,
          undefined,
          undefined,
          undefined,
          undefined,
          { guards: true, interceptors: true, filters: false },
          'http',
        ),
      ]),
    );
    return this.handlers.get(operation)!;
  }
}
