import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { connectA2aGrpc } from '../../../libs/a2a/src/grpc.js';
import { CalendarModule } from './calendar.module.js';

// Loopback unless HOST says otherwise: the demo's agents are open to anyone who can reach them.
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 3101);
const grpcPort = Number(process.env.GRPC_PORT ?? 50061);
const baseUrl = (process.env.A2A_BASE_URL ?? `http://127.0.0.1:${port}`).replace(/\/+$/, '');
const grpc = { url: `${host}:${grpcPort}`, advertisedUrl: process.env.A2A_GRPC_URL ?? `127.0.0.1:${grpcPort}` };
const today = process.env.CALENDAR_TODAY ? new Date(`${process.env.CALENDAR_TODAY}T12:00:00Z`) : undefined;
if (today && Number.isNaN(today.getTime()))
  throw new Error(`CALENDAR_TODAY must be a date like 2026-12-01, not ${process.env.CALENDAR_TODAY}`);

const app = await NestFactory.create(CalendarModule.forRoot({ baseUrl, grpc, today: today && (() => today) }));
app.enableShutdownHooks();
// Started by the travel demo's launcher, over an IPC channel: stop when the launcher goes, however it ends.
if (process.channel) {
  process.channel.unref();
  process.once('disconnect', () => void app.close().finally(() => process.exit(0)));
}
connectA2aGrpc(app);
await app.startAllMicroservices();
await app.listen(port, host);
new Logger('CalendarAgent').log(`Agent card at ${baseUrl}/.well-known/agent-card.json (gRPC on ${grpc.advertisedUrl})`);
