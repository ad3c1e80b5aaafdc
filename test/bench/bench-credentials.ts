import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/**
 * The credentials of the bench's secured servers (our-apikey-server.ts, our-jwt-server.ts). Every request of every
 * server carries both, so the columns differ only in what the server checks; the others ignore them.
 */
export const BENCH_API_KEY = 'bench-api-key-0123456789';
export const BENCH_JWT_ISSUER = 'https://bench-idp.invalid';
export const BENCH_JWT_AUDIENCE = 'bench-agent';

/**
 * Made once by the orchestrator before any server or driver starts, and handed to both through the environment:
 * `BENCH_JWKS` (the public key set the JWT server serves to its agent) and `BENCH_JWT` (the token the drivers send).
 */
export async function issueBenchCredentials(env: NodeJS.ProcessEnv): Promise<void> {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'EdDSA', use: 'sig' };
  env.BENCH_JWKS = JSON.stringify({ keys: [jwk] });
  env.BENCH_JWT = await new SignJWT({ scope: 'a2a:write' })
    .setProtectedHeader({ alg: 'EdDSA', kid: 'bench', typ: 'JWT' })
    .setIssuer(BENCH_JWT_ISSUER)
    .setAudience(BENCH_JWT_AUDIENCE)
    .setSubject('bench')
    .setIssuedAt()
    .setExpirationTime('6h')
    .sign(privateKey);
}

/** The headers that carry both credentials, for HTTP requests and gRPC metadata alike. */
export function benchCredentialHeaders(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return { 'x-api-key': BENCH_API_KEY, ...(env.BENCH_JWT ? { authorization: `Bearer ${env.BENCH_JWT}` } : {}) };
}
