/** An option's value as an error message shows it: short, and never an object's contents. */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null)
    return `an object${value.constructor && value.constructor !== Object ? ` (${value.constructor.name})` : ''}`;
  return String(value);
}

/** A secret as an error message shows it: what is wrong with it, never the secret. */
function shownSecret(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (typeof value !== 'string') return `a ${typeof value}`;
  if (value === 'undefined' || value === 'null')
    return `the string "${value}" (an unset variable written into a string?)`;
  return value.length === 0 ? 'an empty string' : 'blank';
}

/** What kind of value it is, for values an error message must not show. */
function kindOf(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function mismatch(owner: string, path: string, value: unknown, expected: string): string {
  return `${path ? `${owner} option ${path}` : `The ${owner} options object`} is ${shown(value)}; it must be ${expected}.`;
}

/** Every bootstrap and routing message in one place, so tests import them instead of copying strings. */
export const A2aMessages = {
  /** Bootstrap: two skill classes share an id (`DuplicateSkillError`). */
  duplicateSkill: (id: string, first: string, second: string) =>
    `Two @AgentSkill classes use the id "${id}": ${first} and ${second}. Skill ids must be unique.`,
  /** Bootstrap: an `@AgentSkill` class does not extend `A2aSkillHandler` (`InvalidSkillClassError`). */
  invalidSkillClass: (name: string) =>
    `${name} is decorated with @AgentSkill but does not extend A2aSkillHandler (it needs a handle(context) method).`,
  /** Bootstrap: an `@AgentSkill` option is invalid; `problem` says which and why. */
  invalidSkillMetadata: (name: string, problem: string) => `@AgentSkill on ${name}: ${problem}.`,
  /** Bootstrap: the app has no `@AgentSkill` provider. */
  noSkills: () =>
    "A2aModule found no @AgentSkill class: an agent needs at least one skill. Add one to any module's providers.",
  /** Bootstrap: more than one skill is marked `default: true`. */
  twoDefaultSkills: (a: string, b: string) =>
    `Both "${a}" and "${b}" are marked default: true; at most one skill can be.`,
  /** A message or the router (InvalidParams), or a security option, names a skill id the agent does not have. */
  unknownSkill: (id: string, known: string[]) => `No skill "${id}"; this agent's skills are: ${known.join(', ')}.`,
  /** A new task's message names no skill, and neither the router nor a default skill chose one (InvalidParams). */
  unroutable: (known: string[]) =>
    `This agent has several skills (${known.join(', ')}) and none was chosen for the message: name one in message.metadata["nestjs-a2a/skillId"].`,
  /** A security option gives a plain-http identity provider URL for a host not allowed to use it. */
  insecureIdentityProviderUrl: (what: string, url: string) =>
    `${what} ${url} must be https; http is allowed only for hosts listed in allowInsecureHttp (a loopback IdP in tests).`,
  /** A security option's identity provider URL is not an absolute http(s) URL. */
  invalidIdentityProviderUrl: (what: string, value: string) => `${what} "${value}" is not an absolute http(s) URL.`,
  /** A JWT check is given no key source, or more than one. */
  jwtKeySources: (count: number) =>
    `A JWT check needs exactly one key source (jwksUrl, jwks, publicKey or secret); it was given ${count}.`,
  /** A JWT check lacks an issuer or an audience. */
  jwtClaimsRequired: () =>
    'A JWT check needs an issuer and an audience: without them a token minted for another service would pass.',
  /** A JWT check allows no algorithm. */
  jwtNoAlgorithms: () => 'A JWT check needs at least one algorithm in algorithms.',
  /** A JWT check allows `none`. */
  jwtAlgorithmNone: () => 'A JWT check must not allow the algorithm "none": unsigned tokens would pass.',
  /** A JWT check with public keys allows an HMAC algorithm. */
  jwtHmacWithPublicKey: (alg: string) =>
    `Algorithm ${alg} needs a shared secret: with public keys (jwksUrl, jwks, publicKey) an attacker could use the public key as the HMAC secret. Allow only asymmetric algorithms, or give a secret.`,
  /** A JWT check with a shared secret allows a non-HMAC algorithm. */
  jwtSecretNeedsHmac: (alg: string) =>
    `With a secret, only HS256, HS384 and HS512 are allowed; algorithms lists ${alg}.`,
  /** A JWT secret is shorter than 32 bytes. */
  jwtWeakSecret: (bytes: number) =>
    `A JWT secret needs at least 32 bytes (HS256's key size) to resist guessing; this one has ${bytes}.`,
  /** A JWT check's `publicKey` is a KeyObject that is not an asymmetric key. */
  jwtNotPublicKey: (type: string) =>
    `publicKey must be a public (or private) asymmetric key; this KeyObject is of type "${type}".`,
  /** A JWT check's `clockToleranceSeconds` is out of range. */
  jwtClockTolerance: (value: unknown) => `clockToleranceSeconds is ${String(value)}; it must be a number from 0 to 60.`,
  /** A bearer scheme's `maxTokenBytes` is not a positive integer. */
  maxTokenBytes: (value: unknown) => `maxTokenBytes is ${String(value)}; it must be a positive integer.`,
  /** `apiKeyScheme` is given neither `keys` nor `verify`. */
  apiKeyWithoutKeys: () => 'apiKeyScheme needs keys (fixed keys by subject) or verify (your own lookup).',
  /** `oauth2Scheme` is given no way to check access tokens. */
  oauth2WithoutVerifier: () => 'oauth2Scheme needs jwt options, an introspect hook, or both, to check access tokens.',
  /** An `A2aModule` option has a value it cannot work with. */
  invalidOption: (name: string, value: unknown, expected: string) => mismatch('A2aModule', name, value, expected),
  /** `owner`: `A2aModule`, `forRootAsync()` or a scheme factory such as `apiKeyScheme`. */
  optionMismatch: mismatch,
  /** An option is of the wrong kind; the message names the kind, never the value (it may be a secret). */
  optionKindMismatch: (owner: string, path: string, value: unknown, expected: string) =>
    `${owner} option ${path} is ${kindOf(value)}; it must be ${expected}.`,
  /** A secret option is missing, empty or blank; the message never shows the secret. */
  invalidSecret: (owner: string, path: string, value: unknown) =>
    `${owner} option ${path} is ${shownSecret(value)}; it must be a non-empty string (check the environment variable or secret it is read from).`,
  /** An options object has a key that is not an option. */
  unknownOption: (owner: string, path: string, known: readonly string[]) =>
    `${owner} option ${path} is not an option (misspelt?); the options there are: ${known.join(', ')}.`,
  /** An option that shapes the module came from `forRootAsync()`'s factory. */
  staticOptionInFactory: (key: string) =>
    `A2aModule option ${key} shapes the module, so it cannot come from a factory: pass it to forRootAsync() itself, next to useFactory.`,
  /** Two subjects of one scheme are given the same key. */
  sharedSecret: (owner: string, path: string, first: string, second: string) =>
    `${owner} option ${path} gives ${first} and ${second} the same key: a key must authenticate one subject.`,
  /** A caller at `limits.maxTasksPerPrincipal` open tasks starts another (TooManyRequests). */
  tooManyTasks: (max: number) =>
    `At most ${max} tasks of one caller are kept (limits.maxTasksPerPrincipal), and none of this caller's has ended: finish or cancel one first.`,
  /** A caller at `limits.maxStreamsPerPrincipal` open streams opens another (TooManyRequests). */
  tooManyStreams: (max: number) =>
    `At most ${max} streams of one caller may be open at once (limits.maxStreamsPerPrincipal).`,
  /** Bootstrap: the app's HTTP adapter is neither Express nor Fastify. */
  unsupportedHttpAdapter: (type: string) =>
    `nestjs-a2a serves its HTTP bindings on @nestjs/platform-express or @nestjs/platform-fastify; this app uses "${type}".`,
  /** A security requirement names a scheme that `security.schemes` does not declare. */
  undeclaredScheme: (where: string, scheme: string, declared: string[]) =>
    `${where} names the security scheme "${scheme}", which option security.schemes does not declare (declared: ${declared.join(', ') || 'none'}).`,
  /** `security.extendedCard` is set without a security scheme. */
  extendedCardWithoutScheme: () =>
    'Option security.extendedCard needs at least one security scheme: the extended card is served to authenticated callers only (spec §13.3).',
  /** Logged at bootstrap when the agent has no security scheme and `security.allowAnonymous` is not set. */
  anonymousAgent: () =>
    'This A2A agent is unauthenticated: anyone who reaches it can send messages, drive its skills and read any task whose id it holds. Declare security.schemes, or set security.allowAnonymous: true to say this is on purpose.',
  /** A security scheme takes a name reserved for owner keys. */
  reservedSchemeName: (name: string, reserved: readonly string[]) =>
    `Security scheme "${name}": the names ${reserved.join(', ')} are reserved for the owner keys of principals no scheme made (Passport users, an app's own, anonymous callers). Rename the scheme.`,
  /** An anonymous caller asks for an operation that needs an identity (PermissionDenied). */
  anonymousCallerRefused: (operation: string) =>
    `${operation} needs an authenticated caller: anonymous callers are isolated, and reach a task only by its id. Authenticate, or set the agent's option security.anonymousCallers: 'shared' to let all anonymous callers share their tasks.`,
  /** A card signing key is of a type or size the card cannot be signed with. */
  unsupportedCardSigningKey: (type: string) =>
    `A card signing key must be Ed25519 (EdDSA), EC P-256 (ES256) or RSA of at least 2048 bits (RS256, PS256); this one is ${type}.`,
  /** A card signing key's algorithm does not fit its type. */
  cardSigningAlgorithmMismatch: (alg: string, type: string) => `A ${type} key cannot sign with ${alg}.`,
  /** `cardSigning`'s key provider returned no key. */
  noCardSigningKeys: () => 'Option cardSigning is set but no key is active: the AgentCard cannot be signed.',
  /** Logged when the card changed at run time and signing the new one failed. */
  cardResigningFailed: () => 'Signing the changed AgentCard failed; the card signed before the change is still served.',
  /** Bootstrap: a skill has a typed input but its optional peers are not installed. */
  skillInputPackagesMissing: (skillId: string, missing: string[]) =>
    `Skill "${skillId}" declares a typed input (@AgentSkill({ input })), which needs the optional peers class-validator, class-transformer and class-validator-jsonschema; not installed: ${missing.join(', ')}. Run: npm i ${missing.join(' ')}`,
  /** Bootstrap: a typed-input peer is installed at a version without an export this module uses. */
  skillInputPackageIncompatible: (name: string) =>
    `The installed package has no export "${name}": check its version against nestjs-a2a's peer range`,
  /** A typed input refused in mode `'reject'` (InvalidParams, each field in the `BadRequest` detail). */
  invalidSkillInput: (skillId: string, violations: string) => `Invalid input for skill "${skillId}": ${violations}`,
  /** In mode `'input-required'`, the question that asks for a corrected input, unless `invalidInputMessage` is set. */
  invalidInputQuestion: (violations: string) =>
    `The input is missing or invalid (${violations}); send it corrected in a follow-up message on this task.`,
  /** Bootstrap: two declarations of one extension differ. */
  conflictingExtension: (uri: string, first: string, second: string) =>
    `Extension "${uri}" is declared by ${first} and by ${second} with different required, description or params. Declare it once (option extensions for the whole agent), or identically.`,
  /** Bootstrap: an extension declaration is invalid; `problem` says why. */
  invalidExtension: (where: string, problem: string) => `Extension declared by ${where}: ${problem}.`,
  /** Bootstrap: `@A2aExtension` is on a class that is not a skill. */
  extensionOutsideSkill: (name: string) =>
    `${name} is decorated with @A2aExtension but not with @AgentSkill: declare the extensions of the whole agent in option extensions.`,
  /** A call does not activate an extension the agent requires (ExtensionSupportRequired). */
  extensionsRequired: (uris: readonly string[]) =>
    `This agent requires the extension${uris.length > 1 ? 's' : ''} ${uris.join(', ')}: activate ${uris.length > 1 ? 'them' : 'it'} with the A2A-Extensions header (gRPC metadata a2a-extensions).`,
  /** A call does not activate an extension its skill requires (ExtensionSupportRequired). */
  skillExtensionsRequired: (skillId: string, uris: readonly string[]) =>
    `Skill "${skillId}" requires the extension${uris.length > 1 ? 's' : ''} ${uris.join(', ')}: activate ${uris.length > 1 ? 'them' : 'it'} with the A2A-Extensions header (gRPC metadata a2a-extensions).`,
  /** `nestjs-a2a/grpc` or the client's gRPC interface is used without some of its optional peers installed. */
  grpcPackagesMissing: (feature: string, needed: readonly string[], missing: readonly string[], command: string) =>
    `${feature} needs the optional peers ${needed.join(', ')}; not installed: ${missing.join(', ')}. Run: ${command}`,
  /** Two skills take different input classes with one class name (their JSON Schemas would merge in the card). */
  inputClassNameClash: (className: string, first: string, second: string) =>
    `Skills "${first}" and "${second}" take two different input classes named ${className}: JSON Schemas are keyed by class name, so the card would merge them. Rename one of the classes.`,
  /** Boot warning: several skills, no router and no default skill. */
  noDefaultSkill: (known: readonly string[]) =>
    `This agent has ${known.length} skills (${known.join(', ')}), no router and no default skill: a message that does not name its skill in message.metadata["nestjs-a2a/skillId"] is refused with InvalidParams. Mark one @AgentSkill({ default: true }), or give A2aModule.forRoot({ router }).`,
  /** Option `inspector` under `NODE_ENV=production` without `allowInProduction`. */
  inspectorInProduction: () =>
    'Option inspector serves a page that drives every operation of the agent, and NODE_ENV is "production": leave the option out there, or set inspector.allowInProduction to true.',
} as const;
