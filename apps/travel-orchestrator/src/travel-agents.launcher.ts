import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export type TravelAgentName = 'calendar' | 'flights' | 'hotels' | 'orchestrator';

/** One agent of the demo, running as its own Node process. */
export interface AgentProcess {
  readonly name: TravelAgentName;
  readonly child: ChildProcess;
  /** Where its card is served. */
  readonly cardUrl: string;
  /** What it printed so far (the last 64 KiB), for a failure's report. */
  output(): string;
}

/** The four agents of the demo, each in its own process on loopback. */
export interface TravelAgents extends Record<TravelAgentName, AgentProcess> {
  readonly all: readonly AgentProcess[];
  /** Stops every process still running (SIGTERM, then SIGKILL after 5 s) and waits for them. */
  stop(): Promise<void>;
}

export interface TravelAgentsLaunch {
  /** The compiled apps: the folder with `calendar-agent/src/main.js` and the others (`dist/apps`). */
  appsDir: string;
  /** Added to every child's environment, over this process's. */
  env?: Readonly<Record<string, string>>;
  /** Added to one agent's environment, e.g. `{ flights: { STEP_DELAY_MS: '20' } }`. */
  envOf?: Partial<Record<TravelAgentName, Readonly<Record<string, string>>>>;
  /** Node flags of every child, before the script (e.g. `['--import', preload]`). */
  execArgv?: readonly string[];
  /** Gives up waiting for the cards. */
  signal?: AbortSignal;
  /** How long the cards may take to be served. Default 20 s. */
  readyTimeoutMs?: number;
}

const OUTPUT_LIMIT = 64 * 1024;

/**
 * Starts the calendar (HTTP for its card, gRPC for everything else), flight, hotel and orchestrator agents as four
 * Node processes on free loopback ports, the orchestrator told the others' card URLs, and resolves once every card
 * is served. A process that exits first, or cards that take longer than `readyTimeoutMs`, stop them all and reject
 * with what they printed. Each child has an IPC channel to this process and stops when it closes, so the agents do
 * not outlive a launcher that dies without calling `stop()` (killed, or its stdout closed under it).
 */
export async function launchTravelAgents(launch: TravelAgentsLaunch): Promise<TravelAgents> {
  // A port found free may be taken by another process before the child binds it; new ports then, a few times.
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchOnce(launch);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt === PORT_ATTEMPTS) throw error;
    }
  }
}

const PORT_ATTEMPTS = 3;

/** An agent exited because its port was taken between the probe that found it free and its own listen. */
class PortTakenError extends Error {}

async function launchOnce(launch: TravelAgentsLaunch): Promise<TravelAgents> {
  const [calendarPort, calendarGrpcPort, flightsPort, hotelsPort, orchestratorPort] = await freePorts(5);
  const origin = (port: number) => `http://127.0.0.1:${port}`;
  const specs: Array<{ name: TravelAgentName; app: string; port: number; env: Record<string, string> }> = [
    {
      name: 'calendar',
      app: 'calendar-agent',
      port: calendarPort,
      env: { GRPC_PORT: String(calendarGrpcPort), A2A_GRPC_URL: `127.0.0.1:${calendarGrpcPort}` },
    },
    { name: 'flights', app: 'flight-agent', port: flightsPort, env: {} },
    { name: 'hotels', app: 'hotel-agent', port: hotelsPort, env: {} },
    {
      name: 'orchestrator',
      app: 'travel-orchestrator',
      port: orchestratorPort,
      env: {
        CALENDAR_AGENT_URL: origin(calendarPort),
        FLIGHT_AGENT_URL: origin(flightsPort),
        HOTEL_AGENT_URL: origin(hotelsPort),
        A2A_CLIENT_ALLOW: '127.0.0.1/32',
      },
    },
  ];
  const all = specs.map(({ name, app, port, env }) =>
    startAgent(name, join(launch.appsDir, app, 'src', 'main.js'), origin(port), launch.execArgv ?? [], {
      ...launch.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      A2A_BASE_URL: origin(port),
      ...env,
      ...launch.envOf?.[name],
    }),
  );
  const agents = Object.assign(
    Object.fromEntries(all.map((agent) => [agent.name, agent])) as Record<TravelAgentName, AgentProcess>,
    {
      all,
      stop: () => Promise.all(all.map(stopAgent)).then(() => undefined),
    },
  );
  try {
    const deadline = AbortSignal.timeout(launch.readyTimeoutMs ?? 20_000);
    await Promise.all(
      all.map((agent) => waitForCard(agent, launch.signal ? AbortSignal.any([launch.signal, deadline]) : deadline)),
    );
  } catch (error) {
    await agents.stop();
    throw error;
  }
  return agents;
}

function startAgent(
  name: TravelAgentName,
  script: string,
  origin: string,
  execArgv: readonly string[],
  env: Record<string, string>,
): AgentProcess {
  const child = spawn(process.execPath, [...execArgv, script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_LIMIT);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  child.on('error', (error) => keep(Buffer.from(`${error.message}\n`)));
  return { name, child, cardUrl: `${origin}/.well-known/agent-card.json`, output: () => output };
}

/** Polls the card until it is served; rejects when the process exits first or `signal` fires. */
async function waitForCard(agent: AgentProcess, signal: AbortSignal): Promise<void> {
  for (;;) {
    if (exited(agent.child)) {
      const status = agent.child.exitCode ?? agent.child.signalCode;
      const PortError = agent.output().includes('EADDRINUSE') ? PortTakenError : Error;
      throw new PortError(`The ${agent.name} agent exited (${status}) before serving its card:\n${agent.output()}`);
    }
    if (signal.aborted)
      throw new Error(`The ${agent.name} agent did not serve its card at ${agent.cardUrl} in time:\n${agent.output()}`);
    try {
      const response = await fetch(agent.cardUrl, { signal: AbortSignal.any([signal, AbortSignal.timeout(1000)]) });
      await response.body?.cancel();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
}

async function stopAgent({ child }: AgentProcess): Promise<void> {
  if (exited(child)) return;
  const exit = once(child, 'exit');
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exit;
  clearTimeout(killer);
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** `count` distinct ports free on loopback now (held open together, so none is handed out twice). */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    }
    return servers.map((server) => (server.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}
