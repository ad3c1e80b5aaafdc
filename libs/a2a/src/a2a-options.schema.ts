import {
  anyOf,
  arrayOf,
  atLeast,
  bool,
  fn,
  httpUrl,
  instance,
  integer,
  object,
  oneOf,
  recordOf,
  required,
  urlPath,
  secretsByName,
  text,
  type OptionRule,
} from './a2a-options.rules.js';
import { OPERATIONS_BY_NAME } from './bindings/a2a-operations.js';
import { MAX_JSON_DEPTH_LIMIT } from './json/json-depth.js';

/**
 * What every module option must be, one line per option: `A2aModuleOptions` (forRoot, or what forRootAsync's factory
 * returns) and `A2aModuleExtras` (the static ones). Objects the user builds in code (stores, buses, schemes, sinks,
 * keys) are checked for their shape, not their keys.
 */

const positive = (expected = 'a positive integer') => integer(1, { expected });
const wholeMs = () => integer(1, { expected: 'a whole number of ms, 1 or more' });
const positiveOrInfinity = () => integer(1, { orInfinity: true, expected: 'a positive integer, or Infinity' });

/** One alternative of a requirement list: scheme name → scopes. */
const requirement = recordOf(arrayOf(text()));
const requirements = arrayOf(requirement);

const securityScheme = instance(
  'a security scheme from apiKeyScheme(), httpBasicScheme(), bearerJwtScheme(), oauth2Scheme(), openIdConnectScheme(), mtlsScheme() or bearerTokenScheme() (an object with a declaration and an authenticate() method)',
  ['authenticate'],
  ['declaration'],
);

const security = object({
  schemes: recordOf(securityScheme),
  requirements,
  operations: recordOf(requirements, [...OPERATIONS_BY_NAME.keys()]),
  skills: recordOf(requirements),
  allowAnonymous: bool(),
  anonymousCallers: oneOf('isolated', 'shared'),
  tenantPolicy: fn(),
  extendedCard: anyOf(oneOf(true), fn()),
  maxActiveTasksPerPrincipal: integer(1, { expected: 'a whole number, 1 or more' }),
});

const card = object({
  name: required(text()),
  description: required(text()),
  version: text(),
  provider: object({ organization: required(text()), url: required(httpUrl()) }),
  documentationUrl: httpUrl(),
  iconUrl: httpUrl(),
  defaultInputModes: arrayOf(text()),
  defaultOutputModes: arrayOf(text()),
});

const limits = object({
  maxBodyBytes: positive(),
  maxJsonDepth: integer(1, { max: MAX_JSON_DEPTH_LIMIT, expected: `an integer from 1 to ${MAX_JSON_DEPTH_LIMIT}` }),
  maxPartsPerMessage: positive(),
  maxHistoryLength: integer(0),
  maxTasks: positiveOrInfinity(),
  terminalTaskTtlMs: positive(),
  maxTasksPerPrincipal: positiveOrInfinity(),
  maxStreamsPerPrincipal: positiveOrInfinity(),
});

const pemOrBytes = anyOf(text(), instance('a Buffer', [], ['byteLength']));

const push = object({
  allowHttp: bool(),
  allowedHosts: arrayOf(text()),
  allowedCidrs: arrayOf(text()),
  allowedPorts: anyOf(oneOf('any'), arrayOf(integer(1, { max: 65_535 }))),
  connectTimeoutMs: positive(),
  headersTimeoutMs: positive(),
  totalTimeoutMs: positive(),
  baseDelayMs: positive(),
  maxDelayMs: positive(),
  maxAttempts: positive(),
  ca: anyOf(pemOrBytes, arrayOf(pemOrBytes)),
  resolveHost: fn(),
  maxConfigsPerTask: positive(),
  concurrency: positive(),
  pollIntervalMs: positive(),
  maxInFlightPerHost: positive(),
  maxInFlightPerOwner: positive(),
  circuitBreaker: anyOf(oneOf(false), object({ failures: positive(), openMs: positive() })),
  secrets: object({ keys: required(secretsByName({ bytes: true })), currentKeyId: required(text()) }),
});

const cardSigningKey = instance(
  'a CardSigningKey (kid, alg, publicJwk and a sign() method)',
  ['sign'],
  ['kid', 'alg', 'publicJwk'],
);

const cardSigning = object({
  keys: required(
    anyOf(
      arrayOf(cardSigningKey, { nonEmpty: true }),
      instance('a CardSigningKeyProvider (an activeKeys() method)', ['activeKeys']),
    ),
  ),
  jwksPath: urlPath(),
  coverage: oneOf('both', 'strict'),
});

const extension = object({
  uri: required(text()),
  required: bool(),
  description: text(),
  params: instance('a JSON object', []),
});

/** `A2aModuleOptions`. */
export const A2A_OPTIONS_SCHEMA: OptionRule = object({
  card: required(card),
  baseUrl: httpUrl(),
  taskStore: instance('a TaskStore (create, get, list and update methods)', ['create', 'get', 'list', 'update']),
  eventBus: instance('an EventBus (publish and watch methods)', ['publish', 'watch']),
  limits,
  cardMaxAgeSeconds: integer(0),
  sseHeartbeatMs: positive(),
  shutdownGraceMs: atLeast(0, 'a number of ms, 0 or more'),
  leaseTtlMs: wholeMs(),
  leaseRenewMs: wholeMs(),
  cardSigning,
  security,
  push,
  extensions: arrayOf(extension),
  principalResolver: fn(),
  onUnexpectedError: fn(),
  observability: object({ tracing: bool(), metrics: bool(), tracerName: text() }),
  audit: anyOf(bool(), instance('an A2aAuditSink (an object with a record(record) method)', ['record'])),
  directDispatch: bool(),
  compat: object({ v03: bool() }),
  inspector: object({ path: urlPath(), allowInProduction: bool() }),
});

const mount = anyOf(oneOf(false), object({ path: required(urlPath()) }));
const classOr = (what: string, method: string) =>
  anyOf(fn(`a class`), instance(`${what} (an object with a ${method}() method)`, [method]));

/** `A2aModuleExtras`: the options that shape the module, given to forRoot/forRootAsync themselves. */
export const A2A_EXTRAS_SCHEMA: Readonly<Record<string, OptionRule>> = {
  jsonRpc: mount,
  rest: mount,
  bindings: arrayOf(
    instance(
      'a binding plugin, e.g. grpcBinding(…) of nestjs-a2a/grpc',
      [],
      ['protocolBinding', 'controllers', 'providers'],
    ),
  ),
  guards: arrayOf(classOr('a guard', 'canActivate')),
  interceptors: arrayOf(classOr('an interceptor', 'intercept')),
  filters: arrayOf(classOr('an exception filter', 'catch')),
  router: fn('an injectable class (SkillRouter)'),
  isGlobal: bool(),
};
