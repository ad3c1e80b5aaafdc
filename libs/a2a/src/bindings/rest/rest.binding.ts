import { Inject, Injectable } from '@nestjs/common';
import { A2A_BINDING_MOUNTS, type BindingMounts } from '../../binding-mounts.js';
import { joinPath, type HttpBindingPlugin, type HttpBindingRoutes } from '../http/http-binding.js';
import type { HttpRoute } from '../http/http-route.js';
import { RestEndpoint } from './rest.endpoint.js';
import { A2A_REST_DIALECT_ROUTES, REST_OPERATION_ROUTES, TENANT_SEGMENT, type RestRoute } from './rest.routes.js';

/** The HTTP+JSON binding's routes below its mount, each also below `/{tenant}`. */
@Injectable()
export class RestRoutes implements HttpBindingRoutes {
  constructor(
    @Inject(A2A_BINDING_MOUNTS) private readonly mounts: BindingMounts,
    private readonly endpoint: RestEndpoint,
    @Inject(A2A_REST_DIALECT_ROUTES) private readonly dialectRoutes: readonly RestRoute[],
  ) {}

  routes(globalPrefix: string): HttpRoute[] {
    const mount = this.mounts.rest;
    if (mount === undefined) return [];
    // Other versions' routes (option `compat`), ahead of the `/{tenant}/…` ones that would read their first segment as a tenant.
    const routes = this.dialectRoutes.map((route) => this.served(route, joinPath(globalPrefix, mount, route.path)));
    for (const base of [mount, `${mount}/${TENANT_SEGMENT}`]) {
      for (const route of REST_OPERATION_ROUTES)
        routes.push(this.served(route, joinPath(globalPrefix, base, route.path)));
    }
    return routes;
  }

  private served(route: RestRoute, path: string): HttpRoute {
    return {
      method: route.method,
      path,
      binding: 'rest',
      serve: (req, res, values) => void this.endpoint.serve(route, req, res, values),
    };
  }
}

/** The HTTP+JSON binding (spec §11), on by default at the module's `rest.path`. */
export function restBinding(): HttpBindingPlugin {
  return { protocolBinding: 'HTTP+JSON', controllers: [], providers: [RestEndpoint, RestRoutes], routes: RestRoutes };
}
