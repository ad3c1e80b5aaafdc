import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConformanceModule } from './conformance.module.js';
import { DEFAULT_SUBSCRIBE_HOLD_MS } from './conformance.options.js';

const port = Number(process.env.PORT ?? 3001);
const baseUrl = process.env.A2A_BASE_URL ?? `http://localhost:${port}`;
// The TCK's resubscription tests expect the task to outlive two of its streaming timeouts.
const streamingTimeoutSeconds = Number(process.env.TCK_STREAMING_TIMEOUT);
const subscribeHoldMs = streamingTimeoutSeconds > 0 ? 2 * streamingTimeoutSeconds * 1000 : DEFAULT_SUBSCRIBE_HOLD_MS;

const app = await NestFactory.create(ConformanceModule.forRoot({ baseUrl, subscribeHoldMs }));
app.enableShutdownHooks();
await app.listen(port);
new Logger('ConformanceAgent').log(`Agent card at ${baseUrl.replace(/\/+$/, '')}/.well-known/agent-card.json`);
