import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { pushAllowList } from '../../../libs/a2a/src/index.js';
import { TravelOrchestratorModule } from './orchestrator.module.js';

// Loopback unless HOST says otherwise: the demo's agents are open to anyone who can reach them.
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 3100);
const baseUrl = (process.env.A2A_BASE_URL ?? `http://127.0.0.1:${port}`).replace(/\/+$/, '');
const agents = {
  calendar: process.env.CALENDAR_AGENT_URL ?? 'http://127.0.0.1:3101',
  flights: process.env.FLIGHT_AGENT_URL ?? 'http://127.0.0.1:3102',
  hotels: process.env.HOTEL_AGENT_URL ?? 'http://127.0.0.1:3103',
};
// The client dials public https only, unless told otherwise: the demo's workers are on loopback, over plain http.
const network = pushAllowList(process.env.A2A_CLIENT_ALLOW ?? '127.0.0.1/32,::1/128,localhost');

// The audit trail (inbound and outbound) as JSON lines on the log, unless A2A_AUDIT=off.
const audit = process.env.A2A_AUDIT !== 'off';

const app = await NestFactory.create(
  TravelOrchestratorModule.forRoot({
    baseUrl,
    agents,
    network,
    audit,
    homeCity: process.env.TRAVEL_HOME_CITY || undefined,
  }),
);
app.enableShutdownHooks();
// Started by the travel demo's launcher, over an IPC channel: stop when the launcher goes, however it ends.
if (process.channel) {
  process.channel.unref();
  process.once('disconnect', () => void app.close().finally(() => process.exit(0)));
}
await app.listen(port, host);
const known = Object.entries(agents).map(([name, url]) => `${name} ${url}`);
new Logger('TravelOrchestrator').log(
  `Agent card at ${baseUrl}/.well-known/agent-card.json (agents: ${known.join(', ')})`,
);
