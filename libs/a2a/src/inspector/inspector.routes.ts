import { Inject, Injectable } from '@nestjs/common';
import { ExternalContextCreator } from '@nestjs/core';
import type { ServerResponse } from 'node:http';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import { A2aMessages } from '../a2a.messages.js';
import { PROTOCOL_VERSION } from '../a2a.constants.js';
import { joinPath, type HttpBindingRoutes } from '../bindings/http/http-binding.js';
import type { HttpRequest } from '../bindings/http/http-request.js';
import type { HttpRoute } from '../bindings/http/http-route.js';
import { httpViewsOf } from '../bindings/http/http-views.js';
import { flushPendingHeaders } from '../bindings/http/pending-headers.js';
import { sendRestError } from '../bindings/rest/rest-error.response.js';
import { A2A_INVOCATION, type A2aInvocation } from '../context/a2a-invocation.js';
import { InspectorInProductionError } from '../errors/inspector-in-production.error.js';
import { toA2aError } from '../errors/to-a2a-error.js';
import { A2aSecurityPolicy } from '../security/a2a-security.policy.js';
import { loadInspectorAssets, loadInspectorLogin, type InspectorAsset } from './inspector.assets.js';
import { applyCredentialCookie, credentialHeaders } from './inspector-credential.js';
import { A2A_INSPECTOR_HOST, type InspectorPageHandlers } from './inspector-page.host.js';
import { DEFAULT_INSPECTOR_PATH } from './inspector.options.js';

type Guarded = (req: HttpRequest, res: ServerResponse) => Promise<unknown>;

/** The page's files load only from the agent itself, and it calls only the agent. */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'self'; form-action 'none'; frame-ancestors 'none'";

/**
 * The inspector's routes (option `inspector`), contributed to the HTTP server like a binding's: GET of the page, its
 * script and its stylesheet, each behind the guards of the operations, run through the Nest pipeline as the bindings
 * run them; and the login script, public like the card. A browser refused for want of a credential gets a login page
 * (401) that keeps the credential in a cookie of the page's path (see inspector-credential.ts). Refusals otherwise in
 * the HTTP+JSON binding's shape. No routes when the option is off.
 */
@Injectable()
export class InspectorRoutes implements HttpBindingRoutes {
  private guarded: Guarded | undefined;
  private headers: ReadonlySet<string> | undefined;

  constructor(
    @Inject(A2A_MODULE_OPTIONS) private readonly options: A2aModuleOptions,
    private readonly contexts: ExternalContextCreator,
    @Inject(A2A_INSPECTOR_HOST) private readonly host: InspectorPageHandlers,
    private readonly policy: A2aSecurityPolicy,
  ) {
    const inspector = options.inspector;
    if (inspector && process.env.NODE_ENV === 'production' && inspector.allowInProduction !== true)
      throw new InspectorInProductionError(A2aMessages.inspectorInProduction());
  }

  routes(globalPrefix: string): HttpRoute[] {
    if (!this.options.inspector) return [];
    const base = joinPath(globalPrefix, this.options.inspector.path ?? DEFAULT_INSPECTOR_PATH);
    const login = loadInspectorLogin(base);
    const routes = loadInspectorAssets(base).map((asset) =>
      this.route(joinPath(base, asset.path), (req, res) => void this.serveGuarded(asset, login.page, req, res)),
    );
    routes.push(this.route(joinPath(base, login.script.path), (_req, res) => send(res, 200, login.script)));
    return routes;
  }

  private route(path: string, serve: (req: HttpRequest, res: ServerResponse) => void): HttpRoute {
    // Refused (a body on a GET, a bad path) in the HTTP+JSON binding's shape.
    return { method: 'GET', path, binding: 'rest', serve };
  }

  private async serveGuarded(
    asset: InspectorAsset,
    login: InspectorAsset,
    req: HttpRequest,
    res: ServerResponse,
  ): Promise<void> {
    try {
      applyCredentialCookie(
        req,
        (this.headers ??= credentialHeaders(this.policy.cardSecurity().securitySchemes ?? {})),
      );
      await this.guards()(req, res);
    } catch (exception) {
      const error = toA2aError(exception);
      const browser = asset.path === '' && (req.headers.accept ?? '').includes('text/html');
      if (!browser || error.code.http !== 401 || res.headersSent) return sendRestError(res, error);
      for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
      return send(res, 401, login);
    }
    send(res, 200, asset);
  }

  /** Made at the first request, when the app has registered every global guard. */
  private guards(): Guarded {
    if (this.guarded) return this.guarded;
    const handler = this.contexts.create(
      this.host as never,
      this.host.inspectorPage,
      'inspectorPage',
      undefined,
      undefined,
      undefined,
      undefined,
      { guards: true, interceptors: false, filters: false },
      'http',
    ) as (request: unknown, response: unknown) => Promise<unknown>;
    return (this.guarded = (req, res) => {
      const [request, response] = httpViewsOf(req, res);
      (request as { [A2A_INVOCATION]?: A2aInvocation })[A2A_INVOCATION] = pageInvocation(req);
      return handler(request, response);
    });
  }
}

/** The call the page's guards see: reading the agent, as GetExtendedAgentCard does. */
function pageInvocation(req: HttpRequest): A2aInvocation {
  return {
    operation: 'GetExtendedAgentCard',
    binding: 'HTTP+JSON',
    request: {},
    tenant: '',
    version: PROTOCOL_VERSION,
    extensions: [],
    headers: req.headers,
  };
}

function send(res: ServerResponse, status: number, asset: InspectorAsset): void {
  flushPendingHeaders(res);
  res.statusCode = status;
  res.setHeader('Content-Type', asset.contentType);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.end(asset.body);
}
