import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FlightModule } from './flight.module.js';

// Loopback unless HOST says otherwise: the demo's agents are open to anyone who can reach them.
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 3102);
const baseUrl = (process.env.A2A_BASE_URL ?? `http://127.0.0.1:${port}`).replace(/\/+$/, '');
const stepDelayMs = process.env.STEP_DELAY_MS === undefined ? undefined : Number(process.env.STEP_DELAY_MS);

const app = await NestFactory.create(FlightModule.forRoot({ baseUrl, stepDelayMs }));
app.enableShutdownHooks();
// Started by the travel demo's launcher, over an IPC channel: stop when the launcher goes, however it ends.
if (process.channel) {
  process.channel.unref();
  process.once('disconnect', () => void app.close().finally(() => process.exit(0)));
}
await app.listen(port, host);
new Logger('FlightAgent').log(`Agent card at ${baseUrl}/.well-known/agent-card.json`);
