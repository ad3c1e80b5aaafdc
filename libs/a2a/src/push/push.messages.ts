/**
 * Every push delivery message in one place, so tests import them instead of copying strings. Field descriptions go back
 * to the client that registered the webhook; delivery errors go to logs and dead letters. Neither may ever carry a
 * credential, a token, or a URL's query string.
 */
export const PushMessages = {
  // ---- field violations at create time (google.rpc.BadRequest descriptions) ----
  urlRequired: () => 'Required: the absolute https URL of the webhook',
  urlTooLong: (max: number) => `At most ${max} characters`,
  urlHasSpaceOrControl: () => 'Must not contain spaces or control characters',
  urlNotAbsolute: () => 'Must be an absolute URL',
  urlNotHttp: () => 'Must be an https URL',
  urlNeedsHttps: () => 'Must use https: this agent sends no push notification over plain http to this host',
  urlHasUserinfo: () => 'Must not contain a user name or password: put credentials in authentication',
  urlHasFragment: () => 'Must not contain a fragment (#...)',
  urlLocalhost: () => 'Must not name localhost: this agent does not send push notifications to itself',
  urlAddressRefused: (address: string, range: string) => `Must be a public address: ${address} is ${range}`,
  urlPortRefused: (port: number, allowed: string) =>
    `Port ${port} is not allowed for this destination: it may use ${allowed} only`,
  tokenInvalid: (max: number) => `At most ${max} printable ASCII characters (no control characters, no line breaks)`,
  schemeRequired: () => 'Required when authentication is set: an HTTP authentication scheme such as Bearer',
  schemeInvalid: (max: number) =>
    `Must be one HTTP authentication scheme name of at most ${max} characters (RFC 9110 token: letters, digits, !#$%&'*+.^_\`|~-), such as Bearer`,
  credentialsInvalid: (max: number) =>
    `At most ${max} printable ASCII characters (no control characters, no line breaks)`,
  notAString: () => 'Must be a string',
  notAnObject: () => 'Must be a JSON object',

  // ---- delivery errors (DeliveryOutcome.error) ----
  configRefused: (problems: string) => `The push config is refused, nothing sent: ${problems}`,
  eventIdInvalid: (max: number) =>
    `Nothing sent: the event id must be 1 to ${max} visible ASCII characters (it is sent as X-A2A-Event-Id)`,
  addressRefused: (host: string, address: string, range: string) =>
    `Refused to connect to ${address} (${range}) for webhook host ${host}: push notifications go to public addresses only`,
  portRefused: (host: string, address: string, port: number, allowed: string) =>
    `Refused to connect to ${address} port ${port} for webhook host ${host}: an allowlisted destination may use ${allowed} only (option push.allowedPorts)`,
  noAddress: (host: string) => `Webhook host ${host} resolved to no address`,
  redirected: (url: string, status: number) =>
    `POST ${url} answered HTTP ${status}, a redirect: redirects are not followed`,
  answered: (url: string, status: number) => `POST ${url} answered HTTP ${status}`,
  connectTimeout: (url: string, ms: number) => `POST ${url}: no connection within ${ms} ms`,
  headersTimeout: (url: string, ms: number) => `POST ${url}: no response headers within ${ms} ms of sending`,
  totalTimeout: (url: string, ms: number) => `POST ${url}: not answered within ${ms} ms`,
  failed: (url: string, reason: string) => `POST ${url} failed: ${reason}`,

  // ---- destinations skipped (push.circuitBreaker), logged ----
  circuitOpened: (host: string, failures: number, openMs: number) =>
    `Push deliveries to ${host} are paused for ${openMs} ms: ${failures} in a row timed out or could not connect. They stay in the outbox.`,
  circuitClosed: (host: string) => `Push deliveries to ${host} resume: it answered again.`,

  // ---- configuration errors (thrown at bootstrap) ----
  invalidOption: (name: string, value: unknown, expected: string) =>
    `Push option ${name} is ${String(value)}; it must be ${expected}.`,
  invalidAllowedCidr: (value: unknown) =>
    `Push option allowedCidrs holds ${JSON.stringify(value)}, which is not an IP address or CIDR range such as 127.0.0.1/32 or fd00::/8.`,
  invalidAllowedPorts: (value: unknown) =>
    `Push option allowedPorts is ${JSON.stringify(value)}; it must be 'any' or an array of port numbers from 1 to 65535.`,
  invalidAllowedHost: (value: unknown) =>
    `Push option allowedHosts holds ${JSON.stringify(value)}, which is not a host name.`,
  invalidKeyId: (keyId: string) =>
    `Push secrets key id ${JSON.stringify(keyId)} must be 1 to 64 letters, digits, "_" or "-" (it is written into every ciphertext).`,
  invalidKey: (keyId: string) =>
    `Push secrets key "${keyId}" must be 32 bytes (AES-256), given as a Buffer or in base64.`,
  unknownCurrentKey: (keyId: string) => `Push secrets option currentKeyId names "${keyId}", which is not in keys.`,

  // ---- secrets at rest (thrown when a stored value cannot be read back) ----
  secretMalformed: () => 'A stored push secret is not in the v2.<keyId>.<iv>.<ciphertext> format (or v1).',
  legacySecrets: () =>
    'Push secrets stored in the v1 format are in use: they are not bound to their webhook URL and owner, so whoever can write the task store could redirect them. Create those push notification configs again (same id) to store them as v2.',
  secretUnknownKey: (keyId: string) =>
    `A stored push secret was encrypted with key "${keyId}", which the push secrets keys no longer hold: keep retired keys until nothing uses them.`,
  secretsWithoutKeys: () => 'A push config was stored encrypted, and option push.secrets has no keys to read it',
  secretTampered: (keyId: string) =>
    `A stored push secret (key "${keyId}") failed authentication: it was altered, or moved from another task or config.`,
  secretContextHasNul: (field: string) =>
    `A push secret's ${field} must not contain a NUL character (it separates the bound fields).`,
} as const;
