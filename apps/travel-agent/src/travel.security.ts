import { bearerJwtScheme, type A2aSecurityOptions } from '../../../libs/a2a/src/index.js';
import { BOOK_FLIGHT_SKILL_ID } from './book-flight.skill.js';

/** Where the travel agent's bearer tokens come from: your identity provider's JWKS, issuer and audience. */
export interface TravelSecurity {
  jwksUrl: string;
  issuer: string;
  audience: string;
  /** Hosts whose JWKS may be fetched over plain http (a local IdP); https everywhere else. */
  allowInsecureHttp?: readonly string[];
}

/** The scope a token needs to book flights; any valid token may ask for the weather. */
export const BOOKING_SCOPE = 'flights:book';

/** Reads `A2A_JWKS_URL`, `A2A_JWT_ISSUER`, `A2A_JWT_AUDIENCE`; none set: the demo runs open (see docs/security.md). */
export function travelSecurityFromEnv(env: NodeJS.ProcessEnv): TravelSecurity | undefined {
  const { A2A_JWKS_URL: jwksUrl, A2A_JWT_ISSUER: issuer, A2A_JWT_AUDIENCE: audience } = env;
  if (!jwksUrl && !issuer && !audience) return undefined;
  if (!jwksUrl || !issuer || !audience)
    throw new Error('A2A_JWKS_URL, A2A_JWT_ISSUER and A2A_JWT_AUDIENCE go together');
  return { jwksUrl, issuer, audience, allowInsecureHttp: ['127.0.0.1', 'localhost'] };
}

/** Bearer JWTs from one issuer for every call, and the booking scope for the booking skill; open without them. */
export function travelSecurityOptions(security: TravelSecurity | undefined): A2aSecurityOptions {
  if (!security) return { allowAnonymous: true };
  return {
    schemes: { bearer: bearerJwtScheme({ ...security, description: 'An access token of the travel IdP' }) },
    skills: { [BOOK_FLIGHT_SKILL_ID]: [{ bearer: [BOOKING_SCOPE] }] },
  };
}
