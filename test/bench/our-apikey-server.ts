/**
 * Our server with the API-key scheme on: the conformance agent with `A2A_API_KEYS` (CONFORMANCE-AGENT.md), so every
 * call goes through A2aAuthGuard and the constant-time key check. The drivers send the key with every request.
 */
import { BENCH_API_KEY } from './bench-credentials.js';

process.env.A2A_API_KEYS = `bench:${BENCH_API_KEY}`;
await import('./our-server.js');
