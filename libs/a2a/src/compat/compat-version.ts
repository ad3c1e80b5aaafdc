import type { AgentCardView } from '../bindings/http/agent-card.route.js';
import type { JsonRpcDialect } from '../bindings/jsonrpc/jsonrpc.dialect.js';
import type { RestRoute } from '../bindings/rest/rest.routes.js';
import type { CompatInterface } from '../card/compat-interfaces.js';

/** One earlier protocol version, as it plugs into the v1.0 bindings and the card. */
export interface CompatVersion {
  /** Its calls on the JSON-RPC endpoint. */
  readonly jsonRpcDialect: JsonRpcDialect;
  /** Its HTTP+JSON routes, relative to the binding's prefix. */
  readonly restRoutes: readonly RestRoute[];
  /** Its view of the card (one per module: a view may keep what it made of the card). */
  cardView(): AgentCardView;
  /** Its entries in the card's `supportedInterfaces`. */
  readonly interfaces: readonly CompatInterface[];
}
