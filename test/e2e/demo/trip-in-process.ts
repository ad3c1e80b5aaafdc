import 'reflect-metadata';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lastValueFrom, toArray } from 'rxjs';
import { CalendarModule } from '../../../apps/calendar-agent/src/calendar.module.js';
import { FlightModule } from '../../../apps/flight-agent/src/flight.module.js';
import { HotelModule } from '../../../apps/hotel-agent/src/hotel.module.js';
import { TravelOrchestratorModule } from '../../../apps/travel-orchestrator/src/orchestrator.module.js';
import type { Itinerary, PendingHotelQuestion } from '../../../apps/travel-orchestrator/src/trip.hand-offs.js';
import type { TravelAgentName } from '../../../apps/travel-orchestrator/src/travel-agents.launcher.js';
import { A2aAgentClient, type StreamResponse, type Task } from '../../../libs/a2a/src/client.js';
import { connectA2aGrpc } from '../../../libs/a2a/src/grpc.js';
import { A2A_AUDIT_SINK, type A2aAuditSink } from '../../../libs/a2a/src/index.js';
import { freePort } from '../../fixtures/grpc-json.client.js';

/**
 * The four agents of the travel demo booted in this process (their Nest modules from `apps/`, each its own Nest app
 * on its own loopback port, the calendar serving gRPC only), for the suites that read what every agent recorded in one
 * place: spans through one global tracer provider, audit records through sinks given here. Calls between the agents
 * still go over loopback HTTP and gRPC, so trace context crosses each hop as it would between processes.
 */
export interface InProcessAgent {
  readonly app: INestApplication;
  /** The origin; the card is at its well-known path. */
  readonly url: string;
}

export interface InProcessTravelAgents extends Record<TravelAgentName, InProcessAgent> {
  close(): Promise<void>;
}

export const LOOPBACK = { allowedCidrs: ['127.0.0.1/32'] } as const;

/**
 * Starts calendar, flights, hotels and the orchestrator. `audit` gives an agent an audit sink: the workers' through
 * A2A_AUDIT_SINK (their modules have no option for it), the orchestrator's through its option `audit`.
 * `flightStepDelayMs`: the flight agent's pause between its streamed updates (default 5).
 */
export async function startTravelAgentsInProcess({
  audit = {},
  flightStepDelayMs = 5,
}: {
  audit?: Partial<Record<TravelAgentName, A2aAuditSink>>;
  flightStepDelayMs?: number;
} = {}): Promise<InProcessTravelAgents> {
  const started: InProcessAgent[] = [];
  const servers: Server[] = [];
  /** Binds a port first, so the card advertises the real URL, then builds the app on it. */
  const start = async (
    name: TravelAgentName,
    moduleOf: (baseUrl: string) => Promise<DynamicModule> | DynamicModule,
    grpc?: boolean,
  ): Promise<InProcessAgent> => {
    const adapter = new ExpressAdapter();
    const server = createServer(adapter.getInstance());
    servers.push(server);
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    let builder = Test.createTestingModule({ imports: [await moduleOf(url)] });
    const sink = audit[name];
    if (sink && name !== 'orchestrator') builder = builder.overrideProvider(A2A_AUDIT_SINK).useValue(sink);
    const app = (await builder.compile()).createNestApplication(adapter, { logger: ['error'] });
    if (grpc) {
      connectA2aGrpc(app);
      await app.startAllMicroservices();
    }
    await app.init();
    const agent = { app, url };
    started.push(agent);
    return agent;
  };
  const close = async () => {
    for (const server of servers) server.closeAllConnections();
    await Promise.all(started.map((agent) => agent.app.close()));
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  };
  try {
    const grpcAddress = `127.0.0.1:${await freePort()}`;
    const calendar = await start(
      'calendar',
      (baseUrl) => CalendarModule.forRoot({ baseUrl, grpc: { url: grpcAddress, advertisedUrl: grpcAddress } }),
      true,
    );
    const flights = await start('flights', (baseUrl) =>
      FlightModule.forRoot({ baseUrl, stepDelayMs: flightStepDelayMs }),
    );
    const hotels = await start('hotels', (baseUrl) => HotelModule.forRoot({ baseUrl }));
    const orchestrator = await start('orchestrator', (baseUrl) =>
      TravelOrchestratorModule.forRoot({
        baseUrl,
        agents: { calendar: calendar.url, flights: flights.url, hotels: hotels.url },
        network: LOOPBACK,
        audit: audit.orchestrator ?? false,
      }),
    );
    return { calendar, flights, hotels, orchestrator, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** What the user saw of one trip: both streams, and the orchestrator's task at the end. */
export interface PlayedTrip {
  readonly first: StreamResponse[];
  readonly second: StreamResponse[];
  readonly asked: Task;
  readonly done: Task;
  readonly itinerary: Itinerary;
}

/**
 * Plays the user of the scripted trip against the orchestrator: "arrange next week's trip to Lisbon", followed as a
 * stream, then the answer to the hotel question (Casa do Rio, as data) on the same task.
 */
export async function playTrip(user: A2aAgentClient): Promise<PlayedTrip> {
  const first = await lastValueFrom(user.stream("arrange next week's trip to Lisbon").pipe(toArray()));
  const asked = taskAfter(first);
  if (asked.status.state !== 'TASK_STATE_INPUT_REQUIRED')
    throw new Error(`The trip did not ask which hotel: ${JSON.stringify(asked.status)}`);
  const pending = asked.status.message?.parts.find((part) => part.data !== undefined)
    ?.data as unknown as PendingHotelQuestion;
  const second = await lastValueFrom(
    user
      .stream({
        taskId: asked.id,
        contextId: asked.contextId,
        parts: [{ data: { hotelChoice: pending.options[0].id } }],
      })
      .pipe(toArray()),
  );
  const done = taskAfter(second, asked);
  if (done.status.state !== 'TASK_STATE_COMPLETED') throw new Error(`The trip ended ${done.status.state}`);
  const itinerary = done.artifacts
    ?.find((artifact) => artifact.name === 'itinerary')
    ?.parts.find((part) => part.data !== undefined)?.data as unknown as Itinerary;
  return { first, second, asked, done, itinerary };
}

/** The task as a stream's reader knows it at the end: the snapshot, then every status and artifact update. */
function taskAfter(events: StreamResponse[], known?: Task): Task {
  let task = known;
  for (const event of events) {
    if ('task' in event) task = event.task;
    else if ('statusUpdate' in event) task = { ...task!, status: event.statusUpdate.status };
    else if ('artifactUpdate' in event)
      task = { ...task!, artifacts: [...(task!.artifacts ?? []), event.artifactUpdate.artifact] };
  }
  if (!task) throw new Error('no task in the stream');
  return task;
}
