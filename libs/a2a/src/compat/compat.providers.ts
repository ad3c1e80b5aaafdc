import type { Provider } from '@nestjs/common';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import { A2A_AGENT_CARD_VIEWS } from '../bindings/http/agent-card.route.js';
import { A2A_JSONRPC_DIALECTS } from '../bindings/jsonrpc/jsonrpc.dialect.js';
import { A2A_REST_DIALECT_ROUTES } from '../bindings/rest/rest.routes.js';
import { A2A_COMPAT_INTERFACES } from '../card/compat-interfaces.js';
import type { CompatVersion } from './compat-version.js';
import { V03_COMPAT } from './v03/v03.plugin.js';

/** The versions option `compat` enables. */
function enabledVersions(options: A2aModuleOptions): CompatVersion[] {
  return options.compat?.v03 === true ? [V03_COMPAT] : [];
}

/**
 * What option `compat` adds to the module: each enabled version's JSON-RPC dialect, HTTP+JSON routes, card view and
 * card entries, for the bindings and the card to consult; empty lists without it.
 */
export const COMPAT_PROVIDERS: Provider[] = [
  {
    provide: A2A_JSONRPC_DIALECTS,
    useFactory: (options: A2aModuleOptions) => enabledVersions(options).map((version) => version.jsonRpcDialect),
    inject: [A2A_MODULE_OPTIONS],
  },
  {
    provide: A2A_REST_DIALECT_ROUTES,
    useFactory: (options: A2aModuleOptions) => enabledVersions(options).flatMap((version) => version.restRoutes),
    inject: [A2A_MODULE_OPTIONS],
  },
  {
    provide: A2A_AGENT_CARD_VIEWS,
    useFactory: (options: A2aModuleOptions) => enabledVersions(options).map((version) => version.cardView()),
    inject: [A2A_MODULE_OPTIONS],
  },
  {
    provide: A2A_COMPAT_INTERFACES,
    useFactory: (options: A2aModuleOptions) => enabledVersions(options).flatMap((version) => version.interfaces),
    inject: [A2A_MODULE_OPTIONS],
  },
];
