import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import type { ServerResponse } from 'node:http';
import { A2aMessages } from '../../a2a.messages.js';
import { AGENT_CARD_PATH, AgentCardRoute } from './agent-card.route.js';
import { JwksRoute } from './jwks.route.js';
import { A2A_BINDING_MOUNTS, type BindingMounts } from '../../binding-mounts.js';
import type { RestPathValues } from '../rest/rest.routes.js';
import { A2A_HTTP_BINDING_ROUTES, joinPath, type HttpBindingRoutes } from './http-binding.js';
import type { HttpRequest } from './http-request.js';
import type { HttpRoute } from './http-route.js';
import { PreRoutingErrorHandler } from './pre-routing-error.handler.js';
import { registerFastifyRoutes, type FastifyInstanceLike } from './fastify-routes.js';
import { DEFAULT_MAX_BODY_BYTES } from './request-body.js';
import { A2A_MODULE_OPTIONS } from '../../a2a-module-definition.js';
import type { A2aModuleOptions } from '../../a2a-module.options.js';
import { UnmatchedRouteHandler } from './unmatched-route.handler.js';
import { UnsupportedHttpAdapterError } from '../../errors/unsupported-http-adapter.error.js';

/**
 * Registers the module's HTTP routes on the app's HTTP adapter at module init, after Nest has registered the app's
 * controllers: the agent card, every JSON-RPC and HTTP+JSON route (below the global prefix), then the handler of
 * unmatched paths and of errors raised before routing, in the bindings' shapes. On Express directly; on Fastify
 * through registerFastifyRoutes.
 *
 * The A2A routes are not controllers: a controller's guards run before its handler, and these must run after the
 * request is decoded and validated, so the endpoints run the Nest pipeline themselves (A2aHttpPipeline). The same
 * endpoints serve the direct dispatcher, so both paths answer alike by construction.
 */
@Injectable()
export class A2aHttpRoutes implements OnModuleInit {
  private built: HttpRoute[] | undefined;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: ApplicationConfig,
    @Inject(A2A_BINDING_MOUNTS) private readonly mounts: BindingMounts,
    private readonly card: AgentCardRoute,
    private readonly unmatched: UnmatchedRouteHandler,
    private readonly preRouting: PreRoutingErrorHandler,
    @Inject(A2A_MODULE_OPTIONS) private readonly options: A2aModuleOptions,
    private readonly jwks: JwksRoute,
    @Inject(A2A_HTTP_BINDING_ROUTES) private readonly bindings: readonly HttpBindingRoutes[],
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    // Absent in a standalone application context.
    if (!adapter) return;
    const type = adapter.getType();
    if (type === 'fastify') return this.registerOnFastify(adapter.getInstance<FastifyInstanceLike>());
    if (type !== 'express') throw new UnsupportedHttpAdapterError(A2aMessages.unsupportedHttpAdapter(type));
    adapter.get(AGENT_CARD_PATH, (req: HttpRequest, res: ServerResponse) => this.card.serve(req, res));
    if (this.jwks.enabled)
      adapter.get(this.jwks.path, (req: HttpRequest, res: ServerResponse) => this.jwks.serve(req, res));
    for (const route of this.routes()) {
      const handler = (req: HttpRequest & { params?: RestPathValues }, res: ServerResponse) =>
        route.serve(req, res, req.params ?? {});
      if (route.method === 'GET') adapter.get(route.path, handler);
      else if (route.method === 'POST') adapter.post(route.path, handler);
      else adapter.delete(route.path, handler);
    }
    adapter.use(this.unmatched.middleware);
    adapter.use(this.preRouting.middleware);
  }

  private registerOnFastify(instance: FastifyInstanceLike): void {
    const prefix = this.config.getGlobalPrefix();
    const owned = [this.mounts.jsonRpc === '/' ? undefined : this.mounts.jsonRpc, this.mounts.rest || undefined];
    registerFastifyRoutes(instance, {
      routes: this.routes(),
      cardPath: AGENT_CARD_PATH,
      serveCard: (req, res) => this.card.serve(req, res),
      publicRoutes: this.jwks.enabled ? [{ path: this.jwks.path, serve: (req, res) => this.jwks.serve(req, res) }] : [],
      unmatched: (req, res, path) => this.unmatched.answer(req, res, path),
      claims: (path) => this.unmatched.claims(path),
      ownedPrefixes: owned
        .filter((mount): mount is string => mount !== undefined)
        .map((mount) => joinPath(prefix, mount)),
      rootRestPrefix: this.mounts.rest === '' ? joinPath(prefix).replace(/^\/$/, '') : undefined,
      maxBodyBytes: this.options.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    });
  }

  /** Every A2A route in registration order (the HTTP bindings' in theirs), under the app's global prefix. */
  routes(): HttpRoute[] {
    if (this.built) return this.built;
    const prefix = this.config.getGlobalPrefix();
    return (this.built = this.bindings.flatMap((binding) => binding.routes(prefix)));
  }
}
