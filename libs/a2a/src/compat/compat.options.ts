/**
 * Serving clients of earlier protocol versions, each off unless enabled (module option `compat`). What is served
 * then is translated at the binding's edge: the request to its v1.0 form before validation, the app's guards and the
 * engine, the answer back to the client's version after; skills, guards and stores only ever see v1.0.
 */
export interface A2aCompatOptions {
  /**
   * A2A v0.3 clients on the JSON-RPC binding (the common v0.3 deployment): a call whose method is one of v0.3's
   * (`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`, `tasks/resubscribe`,
   * `tasks/pushNotificationConfig/set|get|list|delete`, `agent/getAuthenticatedExtendedCard`) and whose `A2A-Version`
   * is absent or `0.3` is served in v0.3's shapes (`kind` discriminators, lowercase states and roles, `final` on
   * status updates, SSE frames as JSON-RPC responses). The card lists the JSON-RPC endpoint a second time with
   * `protocolVersion: '0.3'`, and a card request without `A2A-Version` (or with `0.3`) gets the card with v0.3's
   * fields added (`url`, `preferredTransport`, `additionalInterfaces`, `protocolVersion`, `security`, …). Calls in
   * v1.0's shapes are served as without it. On the HTTP+JSON binding, v0.3's routes (`/v1/message:send`,
   * `/v1/tasks/{id}`, …, ProtoJSON bodies of v0.3's proto) are served below the mount, ahead of the `/{tenant}/…` ones
   * (compat/v03/v03.rest.ts). Not served in v0.3: gRPC and `GET /v1/card`; webhooks get v1.0 bodies. Default false:
   * v0.3 calls get MethodNotFound / VersionNotSupported, and `/v1/…` below the REST mount reads as tenant `v1`.
   */
  v03?: boolean;
}
