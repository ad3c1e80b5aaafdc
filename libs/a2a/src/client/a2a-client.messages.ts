/** Every message of the A2A client in one place, so tests import them instead of copying strings. */
export const A2aClientMessages = {
  /** `A2aClient.agent(name)` names an agent the module does not register. */
  unknownAgent: (name: string, known: readonly string[]) =>
    `No A2A agent named "${name}" is registered; A2aClientModule.register({ agents }) names ${known.length > 0 ? known.map((k) => `"${k}"`).join(', ') : 'none'}`,
  /** A client option has a value it cannot work with. */
  invalidOption: (name: string, expected: string) => `A2A client option ${name} is invalid: it must be ${expected}`,
  /** An agent's `cardUrl` is not an absolute http(s) URL. */
  invalidCardUrl: (url: string) => `The agent card URL "${url}" is not an absolute http(s) URL`,
  /** The agent card could not be fetched; `why` says what failed. */
  cardUnavailable: (url: string, why: string) => `The agent card at ${url} could not be fetched: ${why}`,
  /** The agent card URL answered an HTTP error status. */
  cardStatus: (url: string, status: number) => `GET ${url} answered HTTP ${status}`,
  /** The agent card is over the client's size limit. */
  cardTooLarge: (url: string, maxBytes: number) => `The agent card at ${url} is larger than ${maxBytes} bytes`,
  /** The agent card is not UTF-8 JSON. */
  cardNotJson: (url: string) => `The agent card at ${url} is not UTF-8 JSON`,
  /** The agent card is not a valid A2A 1.0 AgentCard. */
  invalidCard: (url: string, problems: readonly string[]) =>
    `The agent card at ${url} is not a valid A2A 1.0 AgentCard: ${problems.join('; ')}`,
  /** The card is unsigned though the agent's options pin signing keys. */
  cardUnsigned: (url: string) =>
    `The agent card at ${url} carries no signature, and this agent's options pin signing keys`,
  /** No signature of the card verifies against the pinned keys. */
  cardSignatureInvalid: (url: string) => `No signature of the agent card at ${url} verifies against the pinned keys`,
  /** The card offers no interface this client can call. */
  noCompatibleInterface: (url: string, offered: readonly string[], wanted: readonly string[]) =>
    `The agent card at ${url} offers ${offered.length > 0 ? offered.join(', ') : 'no interface'}; this client uses ${wanted.join(', ')} at protocol version 1.x`,
  /** A host resolved to an address the client does not dial (private, loopback…, not allowlisted). */
  addressRefused: (host: string, address: string, range: string) =>
    `Refused to connect to ${address} (${range}) for host ${host}: the client dials only public addresses, unless its option network.allowedHosts names the host or network.allowedCidrs a range holding the address (e.g. network: { allowedHosts: ['${host}'] } in the agent's options)`,
  /** A multicast, broadcast or unspecified address, which no option allows. */
  addressNeverDialled: (host: string, address: string, range: string) =>
    `Refused to connect to ${address} (${range}) for host ${host}: ${range} addresses are never dialled, whatever the client's network options`,
  /** A host resolved to no address. */
  hostResolvedToNothing: (host: string) => `Host ${host} resolved to no address`,
  /** A plain-http URL the client's network options do not allow. */
  plainHttpRefused: (url: string, host: string) =>
    `Refused ${url}: plain http is used only with the client option network.allowHttp: true, to a host network.allowedHosts names (e.g. network: { allowedHosts: ['${host}'] } in the agent's options) or to an IP address within network.allowedCidrs; otherwise use https`,
  /** A URL that is neither http nor https. */
  schemeRefused: (url: string) =>
    `Refused ${url}: only http and https URLs are fetched (no client option allows others)`,
  /** A URL with credentials (`user:pass@`) in it. */
  userinfoRefused: (url: string) =>
    `Refused ${url}: URLs with credentials in them are not fetched; give credentials in the agent's credentials option instead`,
  /** A call got no answer within its timeout. */
  timeout: (what: string, ms: number) => `${what}: no answer within ${ms} ms`,
  /** A call failed on the network; `why` says how. */
  network: (what: string, why: string) => `${what}: ${why}`,
  /** The caller aborted a call (its `signal`). */
  aborted: (what: string) => `${what}: aborted by the caller`,
  /** The agent answered something that is not valid A2A. */
  invalidResponse: (what: string, why: string) => `${what}: the agent's answer is not valid A2A: ${why}`,
  /** The agent's answer is over the client's size limit. */
  responseTooLarge: (what: string, maxBytes: number) => `${what}: the answer is larger than ${maxBytes} bytes`,
  /** The card's gRPC interface was chosen but the gRPC peers could not be loaded (the cause names them). */
  grpcUnavailable: (why: string) => `The gRPC interface cannot be used: ${why}`,
  /** The OAuth2 token endpoint issued no token. */
  tokenEndpointFailed: (url: string, why: string) => `The OAuth2 token endpoint ${url} did not issue a token: ${why}`,
  /** An OAuth2 scheme of the card has no client-credentials flow and the options give no `tokenUrl`. */
  noTokenUrl: (scheme: string) =>
    `OAuth2 scheme "${scheme}" of the card has no clientCredentials flow and the client options give no tokenUrl`,
  /** Credentials would go to an origin that is neither the card's nor an allowed one. */
  credentialOriginRefused: (url: string, origin: string, cardOrigin: string) =>
    `Refused to send credentials to ${url}: its origin ${origin} is neither the card's (${cardOrigin}) nor one that credentials.allowedOrigins names`,
  /** The client secret would go to a token URL taken from an unverified card. */
  untrustedTokenUrl: (scheme: string, tokenUrl: string) =>
    `Refused to send the OAuth2 client secret to ${tokenUrl}, the token URL of the card's scheme "${scheme}": set credentials.oauth2.tokenUrl, or pin the card's signing keys (cardVerification) so that its token URL can be trusted`,
  /** The card asks for the API key in a place `credentials.apiKeyPlacement` does not allow. */
  apiKeyPlacementRefused: (scheme: string, asked: string, allowed: string) =>
    `Refused to send the API key as the card's scheme "${scheme}" asks (${asked}): credentials.apiKeyPlacement allows ${allowed}`,
  /** A credential provider function threw or rejected. */
  credentialProviderFailed: (why: string) => `The credential provider failed: ${why}`,
} as const;
