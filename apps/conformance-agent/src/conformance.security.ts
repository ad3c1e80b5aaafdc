import {
  apiKeyScheme,
  type A2aSecurityOptions,
  type A2aSecurityRequirement,
  type A2aSecurityScheme,
} from '../../../libs/a2a/src/index.js';
import { bearerJwtScheme } from '../../../libs/a2a/src/security/schemes/bearer-jwt.scheme.js';

/** The conformance agent's credentials (CONFORMANCE-AGENT.md, "Security"); none set: anonymous, as before. */
export interface ConformanceSecurity {
  /** Subject → key, from `A2A_API_KEYS=alice:key-a,bob:key-b`. */
  apiKeys?: Readonly<Record<string, string>>;
  /** From `A2A_JWKS_URL`, `A2A_JWT_ISSUER`, `A2A_JWT_AUDIENCE`. */
  jwt?: { jwksUrl: string; issuer: string; audience: string };
}

/** Operations a bearer token may call only with scope `a2a:write`. */
const WRITES = [
  'SendMessage',
  'SendStreamingMessage',
  'CancelTask',
  'CreateTaskPushNotificationConfig',
  'DeleteTaskPushNotificationConfig',
] as const;

/** Reads the security variables; throws on a malformed one, so a typo never leaves the agent open. */
export function conformanceSecurityFromEnv(env: NodeJS.ProcessEnv): ConformanceSecurity {
  const security: ConformanceSecurity = {};
  if (env.A2A_API_KEYS) {
    const pairs = env.A2A_API_KEYS.split(',').map((entry) => entry.trim().split(':'));
    if (pairs.some((pair) => pair.length !== 2 || !pair[0] || !pair[1]))
      throw new Error('A2A_API_KEYS must be name:key pairs separated by commas');
    security.apiKeys = Object.fromEntries(pairs);
  }
  const { A2A_JWKS_URL: jwksUrl, A2A_JWT_ISSUER: issuer, A2A_JWT_AUDIENCE: audience } = env;
  if (jwksUrl || issuer || audience) {
    if (!jwksUrl || !issuer || !audience)
      throw new Error('A2A_JWKS_URL, A2A_JWT_ISSUER and A2A_JWT_AUDIENCE go together');
    security.jwt = { jwksUrl, issuer, audience };
  }
  return security;
}

/**
 * Each variable adds its scheme and one alternative of the card's requirements; bearer tokens need `a2a:write` to
 * write. With any scheme, the extended card adds the `conformance-extended` skill. None: anonymous on purpose, shared.
 */
export function conformanceSecurityOptions(security: ConformanceSecurity = {}): A2aSecurityOptions {
  const schemes: Record<string, A2aSecurityScheme> = {};
  if (security.apiKeys) {
    schemes.apiKey = apiKeyScheme({
      in: 'header',
      name: 'X-API-Key',
      keys: security.apiKeys,
      description: 'A key of A2A_API_KEYS',
    });
  }
  if (security.jwt) {
    // A loopback IdP (a test's, a conformance kit's) may serve its keys over plain http; nothing else may.
    schemes.bearer = bearerJwtScheme({ ...security.jwt, allowInsecureHttp: ['127.0.0.1', 'localhost', '[::1]'] });
  }
  // No credentials configured: conformance kits call ListTasks and the push config operations without any, which
  // isolated anonymous callers may not; they share one owner here instead (secrets still redacted).
  if (Object.keys(schemes).length === 0) return { allowAnonymous: true, anonymousCallers: 'shared' };
  const writers: A2aSecurityRequirement[] = [
    ...(schemes.apiKey ? [{ apiKey: [] }] : []),
    ...(schemes.bearer ? [{ bearer: ['a2a:write'] }] : []),
  ];
  return {
    schemes,
    operations: Object.fromEntries(WRITES.map((operation) => [operation, writers])),
    extendedCard: (_principal, card) => ({
      ...card,
      skills: [
        ...card.skills,
        {
          id: 'conformance-extended',
          name: 'Extended',
          description: 'Listed only in the extended card, for authenticated callers.',
          tags: ['conformance'],
        },
      ],
    }),
  };
}
