import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TravelModule } from './travel.module.js';

const port = Number(process.env.PORT ?? 3000);
const baseUrl = (process.env.A2A_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');

const app = await NestFactory.create(TravelModule.forRoot({ baseUrl }));
// Stops running skills (their AbortSignal fires) on Ctrl-C.
app.enableShutdownHooks();
await app.listen(port);
new Logger('TravelAgent').log(`Agent card at ${baseUrl}/.well-known/agent-card.json`);
