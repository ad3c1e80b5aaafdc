import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { connectA2aGrpc } from '../../../libs/a2a/src/grpc.js';
import { cardSigningKeyFromFile } from '../../../libs/a2a/src/index.js';
import { ConformanceModule } from './conformance.module.js';
import { DEFAULT_SUBSCRIBE_HOLD_MS } from './conformance.options.js';
import { conformanceSecurityFromEnv } from './conformance.security.js';

// HOST narrows the listening interfaces (e.g. 127.0.0.1 in tests and benchmarks); unset means all of them.
const host = process.env.HOST;
const port = Number(process.env.PORT ?? 3001);
const baseUrl = process.env.A2A_BASE_URL ?? `http://localhost:${port}`;
// The TCK's resubscription tests expect the task to outlive two of its streaming timeouts.
const streamingTimeoutSeconds = Number(process.env.TCK_STREAMING_TIMEOUT);
const subscribeHoldMs = streamingTimeoutSeconds > 0 ? 2 * streamingTimeoutSeconds * 1000 : DEFAULT_SUBSCRIBE_HOLD_MS;
const grpcPort = Number(process.env.GRPC_PORT ?? 50051);
const grpc = {
  url: `${host ?? '0.0.0.0'}:${grpcPort}`,
  advertisedUrl: process.env.A2A_GRPC_URL ?? `localhost:${grpcPort}`,
};
const signingKeyPath = process.env.A2A_CARD_SIGNING_KEY;
const cardSigningKey = signingKeyPath ? await cardSigningKeyFromFile(signingKeyPath, { alg: 'EdDSA' }) : undefined;
// Task events through Redis, so that replicas follow each other's streams; imported only then (no `ioredis` needed otherwise).
const redisUrl = process.env.A2A_REDIS_URL;
const eventBus = redisUrl
  ? (await import('../../../libs/a2a/src/redis.js')).redisEventBus({
      url: redisUrl,
      prefix: process.env.A2A_REDIS_PREFIX || undefined,
    })
  : undefined;
// Tasks in PostgreSQL, migrated at boot; imported only then, so that the agent runs without `pg` installed.
const postgresUrl = process.env.A2A_POSTGRES_URL;
const taskStore = postgresUrl
  ? await (
      await import('../../../libs/a2a/src/postgres.js')
    ).postgresTaskStore({
      connectionString: postgresUrl,
      schema: process.env.A2A_POSTGRES_SCHEMA || undefined,
      migrate: true,
    })
  : undefined;

// How soon other replicas fail the tasks of one that died (tests shorten it).
const leaseTtlMs = Number(process.env.A2A_LEASE_TTL_MS) || undefined;
// A2A_COMPAT_V03=1 also serves A2A v0.3 clients (JSON-RPC, and the card's v0.3 fields); v1.0 only otherwise.
const compat = process.env.A2A_COMPAT_V03 === '1' ? { v03: true } : undefined;

const app = await NestFactory.create(
  ConformanceModule.forRoot({
    baseUrl,
    subscribeHoldMs,
    grpc,
    security: conformanceSecurityFromEnv(process.env),
    cardSigningKey,
    taskStore,
    eventBus,
    leaseTtlMs,
    push: { allow: process.env.A2A_PUSH_ALLOW },
    compat,
  }),
);
app.enableShutdownHooks();
connectA2aGrpc(app);
await app.startAllMicroservices();
await (host ? app.listen(port, host) : app.listen(port));
new Logger('ConformanceAgent').log(`Agent card at ${baseUrl.replace(/\/+$/, '')}/.well-known/agent-card.json`);
