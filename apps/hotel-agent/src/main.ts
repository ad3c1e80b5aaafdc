import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { HotelModule } from './hotel.module.js';

// Loopback unless HOST says otherwise: the demo's agents are open to anyone who can reach them.
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 3103);
const baseUrl = (process.env.A2A_BASE_URL ?? `http://127.0.0.1:${port}`).replace(/\/+$/, '');

const app = await NestFactory.create(HotelModule.forRoot({ baseUrl }));
app.enableShutdownHooks();
// Started by the travel demo's launcher, over an IPC channel: stop when the launcher goes, however it ends.
if (process.channel) {
  process.channel.unref();
  process.once('disconnect', () => void app.close().finally(() => process.exit(0)));
}
await app.listen(port, host);
new Logger('HotelAgent').log(`Agent card at ${baseUrl}/.well-known/agent-card.json`);
