import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { connectA2aGrpc } from '../../../libs/a2a/src/grpc.js';
import { TravelModule } from './travel.module.js';
import { travelSecurityFromEnv } from './travel.security.js';

// HOST narrows the listening interfaces (e.g. 127.0.0.1 in tests and benchmarks); unset means all of them.
const host = process.env.HOST;
const port = Number(process.env.PORT ?? 3000);
const baseUrl = (process.env.A2A_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');

// 50052, so the travel and conformance agents (50051) can run side by side.
const grpcPort = Number(process.env.GRPC_PORT ?? 50052);
const grpc = {
  url: `${host ?? '0.0.0.0'}:${grpcPort}`,
  advertisedUrl: process.env.A2A_GRPC_URL ?? `localhost:${grpcPort}`,
};

// The inspector page, a browser view of the agent, everywhere but in production.
const inspector = process.env.NODE_ENV === 'production' ? undefined : { path: '/a2a/inspector' };

const app = await NestFactory.create(
  TravelModule.forRoot({ baseUrl, grpc, security: travelSecurityFromEnv(process.env), inspector }),
);
// Stops running skills (their AbortSignal fires) on Ctrl-C.
app.enableShutdownHooks();
connectA2aGrpc(app);
await app.startAllMicroservices();
await (host ? app.listen(port, host) : app.listen(port));
const logger = new Logger('TravelAgent');
logger.log(`Agent card at ${baseUrl}/.well-known/agent-card.json`);
if (inspector) logger.log(`Inspector at ${baseUrl}${inspector.path}`);
