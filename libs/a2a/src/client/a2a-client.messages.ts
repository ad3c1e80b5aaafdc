/** Every message of the A2A client in one place, so tests import them instead of copying strings. */
export const A2aClientMessages = {
  unknownAgent: (name: string, known: readonly string[]) =>
    `No A2A agent named "${name}" is registered; A2aClientModule.register({ agents }) names ${known.length > 0 ? known.map((k) => `"${k}"`).join(', ') : 'none'}`,
  invalidOption: (name: string, expected: string) => `A2A client option ${name} is invalid: it must be ${expected}`,
  invalidCardUrl: (url: string) => `The agent card URL "${url}" is not an absolute http(s) URL`,
  cardUnavailable: (url: string, why: string) => `The agent card at ${url} could not be fetched: ${why}`,
  cardStatus: (url: string, status: number) => `GET ${url} answered HTTP ${status}`,
  cardTooLarge: (url: string, maxBytes: number) => `The agent card at ${url} is larger than ${maxBytes} bytes`,
  cardNotJson: (url: string) => `The agent card at ${url} is not UTF-8 JSON`,
  invalidCard: (url: string, problems: readonly string[]) =>
    `The agent card at ${url} is not a valid A2A 1.0 AgentCard: ${problems.join('; ')}`,
  cardUnsigned: (url: string) =>
    `The agent card at ${url} carries no signature, and this agent's options pin signing keys`,
  cardSignatureInvalid: (url: string) => `No signature of the agent card at ${url} verifies against the pinned keys`,
  noCompatibleInterface: (url: string, offered: readonly string[], wanted: readonly string[]) =>
    `The agent card at ${url} offers ${offered.length > 0 ? offered.join(', ') : 'no interface'}; this client uses ${wanted.join(', ')} at protocol version 1.x`,
  addressRefused: (host: string, address: string, range: string) =>
    `Refused to connect to ${address} (${range}) for host ${host}: the client dials only public addresses, unless its option network.allowedHosts names the host or network.allowedCidrs a range holding the address (e.g. network: { allowedHosts: ['${host}'] } in the agent's options)`,
  addressNeverDialled: (host: string, address: string, range: string) =>
    `Refused to connect to ${address} (${range}) for host ${host}: ${range} addresses are never dialled, whatever the client's network options`,
  hostResolvedToNothing: (host: string) => `Host ${host} resolved to no address`,
  plainHttpRefused: (url: string, host: string) =>
    `Refused ${url}: plain http is used only with the client option network.allowHttp: true, to a host network.allowedHosts names (e.g. network: { allowedHosts: ['${host}'] } in the agent's options) or to an IP address within network.allowedCidrs; otherwise use https`,
  schemeRefused: (url: string) =>
    `Refused ${url}: only http and https URLs are fetched (no client option allows others)`,
  userinfoRefused: (url: string) =>
    `Refused ${url}: URLs with credentials in them are not fetched; give credentials in the agent's credentials option instead`,
  timeout: (what: string, ms: number) => `${what}: no answer within ${ms} ms`,
  network: (what: string, why: string) => `${what}: ${why}`,
  aborted: (what: string) => `${what}: aborted by the caller`,
  invalidResponse: (what: string, why: string) => `${what}: the agent's answer is not valid A2A: ${why}`,
  responseTooLarge: (what: string, maxBytes: number) => `${what}: the answer is larger than ${maxBytes} bytes`,
  grpcUnavailable: (why: string) =>
    `The gRPC interface needs the optional peers @grpc/grpc-js, @grpc/proto-loader and protobufjs (npm i @grpc/grpc-js @grpc/proto-loader protobufjs): ${why}`,
  tokenEndpointFailed: (url: string, why: string) => `The OAuth2 token endpoint ${url} did not issue a token: ${why}`,
  noTokenUrl: (scheme: string) =>
    `OAuth2 scheme "${scheme}" of the card has no clientCredentials flow and the client options give no tokenUrl`,
  credentialOriginRefused: (url: string, origin: string, cardOrigin: string) =>
    `Refused to send credentials to ${url}: its origin ${origin} is neither the card's (${cardOrigin}) nor one that credentials.allowedOrigins names`,
  untrustedTokenUrl: (scheme: string, tokenUrl: string) =>
    `Refused to send the OAuth2 client secret to ${tokenUrl}, the token URL of the card's scheme "${scheme}": set credentials.oauth2.tokenUrl, or pin the card's signing keys (cardVerification) so that its token URL can be trusted`,
  apiKeyPlacementRefused: (scheme: string, asked: string, allowed: string) =>
    `Refused to send the API key as the card's scheme "${scheme}" asks (${asked}): credentials.apiKeyPlacement allows ${allowed}`,
  credentialProviderFailed: (why: string) => `The credential provider failed: ${why}`,
} as const;
