/**
 * Our server with the bearer JWT scheme on: the conformance agent with `A2A_JWKS_URL`, `A2A_JWT_ISSUER` and
 * `A2A_JWT_AUDIENCE`, its key set served from a loopback server in this process (fetched once, then cached by jose),
 * so every call verifies an EdDSA signature and the claims. The drivers send the token the orchestrator issued.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BENCH_JWT_AUDIENCE, BENCH_JWT_ISSUER } from './bench-credentials.js';

const jwks = process.env.BENCH_JWKS;
if (!jwks) throw new Error('BENCH_JWKS is not set: the bench orchestrator issues it');
const keys = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
await new Promise<void>((resolve) => keys.listen(0, '127.0.0.1', resolve));
keys.unref();
process.env.A2A_JWKS_URL = `http://127.0.0.1:${(keys.address() as AddressInfo).port}/jwks`;
process.env.A2A_JWT_ISSUER = BENCH_JWT_ISSUER;
process.env.A2A_JWT_AUDIENCE = BENCH_JWT_AUDIENCE;
await import('./our-server.js');
