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
  duplicateSkill: (id: string, first: string, second: string) =>
    `Two @AgentSkill classes use the id "${id}": ${first} and ${second}. Skill ids must be unique.`,
  invalidSkillClass: (name: string) =>
    `${name} is decorated with @AgentSkill but does not extend A2aSkillHandler (it needs a handle(context) method).`,
  invalidSkillMetadata: (name: string, problem: string) => `@AgentSkill on ${name}: ${problem}.`,
  noSkills: () =>
    "A2aModule found no @AgentSkill class: an agent needs at least one skill. Add one to any module's providers.",
  twoDefaultSkills: (a: string, b: string) =>
    `Both "${a}" and "${b}" are marked default: true; at most one skill can be.`,
  unknownSkill: (id: string, known: string[]) => `No skill "${id}"; this agent's skills are: ${known.join(', ')}.`,
  unroutable: (known: string[]) =>
    `This agent has several skills (${known.join(', ')}) and none was chosen for the message: name one in message.metadata["nestjs-a2a/skillId"].`,
  insecureIdentityProviderUrl: (what: string, url: string) =>
    `${what} ${url} must be https; http is allowed only for hosts listed in allowInsecureHttp (a loopback IdP in tests).`,
  invalidIdentityProviderUrl: (what: string, value: string) => `${what} "${value}" is not an absolute http(s) URL.`,
  jwtKeySources: (count: number) =>
    `A JWT check needs exactly one key source (jwksUrl, jwks, publicKey or secret); it was given ${count}.`,
  jwtClaimsRequired: () =>
    'A JWT check needs an issuer and an audience: without them a token minted for another service would pass.',
  jwtNoAlgorithms: () => 'A JWT check needs at least one algorithm in algorithms.',
  jwtAlgorithmNone: () => 'A JWT check must not allow the algorithm "none": unsigned tokens would pass.',
  jwtHmacWithPublicKey: (alg: string) =>
    `Algorithm ${alg} needs a shared secret: with public keys (jwksUrl, jwks, publicKey) an attacker could use the public key as the HMAC secret. Allow only asymmetric algorithms, or give a secret.`,
  jwtSecretNeedsHmac: (alg: string) =>
    `With a secret, only HS256, HS384 and HS512 are allowed; algorithms lists ${alg}.`,
  jwtWeakSecret: (bytes: number) =>
    `A JWT secret needs at least 32 bytes (HS256's key size) to resist guessing; this one has ${bytes}.`,
  jwtNotPublicKey: (type: string) =>
    `publicKey must be a public (or private) asymmetric key; this KeyObject is of type "${type}".`,
  jwtClockTolerance: (value: unknown) => `clockToleranceSeconds is ${String(value)}; it must be a number from 0 to 60.`,
  maxTokenBytes: (value: unknown) => `maxTokenBytes is ${String(value)}; it must be a positive integer.`,
  apiKeyWithoutKeys: () => 'apiKeyScheme needs keys (fixed keys by subject) or verify (your own lookup).',
  oauth2WithoutVerifier: () => 'oauth2Scheme needs jwt options, an introspect hook, or both, to check access tokens.',
  invalidOption: (name: string, value: unknown, expected: string) => mismatch('A2aModule', name, value, expected),
  /** `owner`: `A2aModule`, `forRootAsync()` or a scheme factory such as `apiKeyScheme`. */
  optionMismatch: mismatch,
  optionKindMismatch: (owner: string, path: string, value: unknown, expected: string) =>
    `${owner} option ${path} is ${kindOf(value)}; it must be ${expected}.`,
  invalidSecret: (owner: string, path: string, value: unknown) =>
    `${owner} option ${path} is ${shownSecret(value)}; it must be a non-empty string (check the environment variable or secret it is read from).`,
  unknownOption: (owner: string, path: string, known: readonly string[]) =>
    `${owner} option ${path} is not an option (misspelt?); the options there are: ${known.join(', ')}.`,
  staticOptionInFactory: (key: string) =>
    `A2aModule option ${key} shapes the module, so it cannot come from a factory: pass it to forRootAsync() itself, next to useFactory.`,
  sharedSecret: (owner: string, path: string, first: string, second: string) =>
    `${owner} option ${path} gives ${first} and ${second} the same key: a key must authenticate one subject.`,
  tooManyTasks: (max: number) =>
    `At most ${max} tasks of one caller are kept (limits.maxTasksPerPrincipal), and none of this caller's has ended: finish or cancel one first.`,
  tooManyStreams: (max: number) =>
    `At most ${max} streams of one caller may be open at once (limits.maxStreamsPerPrincipal).`,
  unsupportedHttpAdapter: (type: string) =>
    `nestjs-a2a serves its HTTP bindings on @nestjs/platform-express or @nestjs/platform-fastify; this app uses "${type}".`,
  undeclaredScheme: (where: string, scheme: string, declared: string[]) =>
    `${where} names the security scheme "${scheme}", which option security.schemes does not declare (declared: ${declared.join(', ') || 'none'}).`,
  extendedCardWithoutScheme: () =>
    'Option security.extendedCard needs at least one security scheme: the extended card is served to authenticated callers only (spec §13.3).',
  anonymousAgent: () =>
    'This A2A agent is unauthenticated: anyone who reaches it can send messages, drive its skills and read any task whose id it holds. Declare security.schemes, or set security.allowAnonymous: true to say this is on purpose.',
  reservedSchemeName: (name: string, reserved: readonly string[]) =>
    `Security scheme "${name}": the names ${reserved.join(', ')} are reserved for the owner keys of principals no scheme made (Passport users, an app's own, anonymous callers). Rename the scheme.`,
  anonymousCallerRefused: (operation: string) =>
    `${operation} needs an authenticated caller: anonymous callers are isolated, and reach a task only by its id. Authenticate, or set the agent's option security.anonymousCallers: 'shared' to let all anonymous callers share their tasks.`,
  unsupportedCardSigningKey: (type: string) =>
    `A card signing key must be Ed25519 (EdDSA), EC P-256 (ES256) or RSA of at least 2048 bits (RS256, PS256); this one is ${type}.`,
  cardSigningAlgorithmMismatch: (alg: string, type: string) => `A ${type} key cannot sign with ${alg}.`,
  noCardSigningKeys: () => 'Option cardSigning is set but no key is active: the AgentCard cannot be signed.',
  cardResigningFailed: () => 'Signing the changed AgentCard failed; the card signed before the change is still served.',
  skillInputPackagesMissing: (skillId: string, missing: string[]) =>
    `Skill "${skillId}" declares a typed input (@AgentSkill({ input })), which needs the optional peers class-validator, class-transformer and class-validator-jsonschema; not installed: ${missing.join(', ')}. Run: npm i ${missing.join(' ')}`,
  skillInputPackageIncompatible: (name: string) =>
    `The installed package has no export "${name}": check its version against nestjs-a2a's peer range`,
  invalidSkillInput: (skillId: string, violations: string) => `Invalid input for skill "${skillId}": ${violations}`,
  invalidInputQuestion: (violations: string) =>
    `The input is missing or invalid (${violations}); send it corrected in a follow-up message on this task.`,
  conflictingExtension: (uri: string, first: string, second: string) =>
    `Extension "${uri}" is declared by ${first} and by ${second} with different required, description or params. Declare it once (option extensions for the whole agent), or identically.`,
  invalidExtension: (where: string, problem: string) => `Extension declared by ${where}: ${problem}.`,
  extensionOutsideSkill: (name: string) =>
    `${name} is decorated with @A2aExtension but not with @AgentSkill: declare the extensions of the whole agent in option extensions.`,
  extensionsRequired: (uris: readonly string[]) =>
    `This agent requires the extension${uris.length > 1 ? 's' : ''} ${uris.join(', ')}: activate ${uris.length > 1 ? 'them' : 'it'} with the A2A-Extensions header (gRPC metadata a2a-extensions).`,
  skillExtensionsRequired: (skillId: string, uris: readonly string[]) =>
    `Skill "${skillId}" requires the extension${uris.length > 1 ? 's' : ''} ${uris.join(', ')}: activate ${uris.length > 1 ? 'them' : 'it'} with the A2A-Extensions header (gRPC metadata a2a-extensions).`,
  inspectorInProduction: () =>
    'Option inspector serves a page that drives every operation of the agent, and NODE_ENV is "production": leave the option out there, or set inspector.allowInProduction to true.',
} as const;
