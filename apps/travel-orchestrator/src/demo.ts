import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  A2aAgentClient,
  type Message,
  type StreamResponse,
  type Task,
  type TaskState,
} from '../../../libs/a2a/src/client.js';
import type { JsonObject } from '../../../libs/a2a/src/index.js';
import { iterate } from './observable.iterator.js';
import { moneyOf, pendingQuestionOf, textOf, type Itinerary, type PendingHotelQuestion } from './trip.hand-offs.js';
import { launchTravelAgents } from './travel-agents.launcher.js';

/**
 * `npm run demo:travel`: the scenario "arrange next week's trip", end to end. Starts the four agents as separate
 * processes on loopback (the calendar on gRPC), then plays the user with the client: asks the orchestrator, follows
 * its stream, answers its hotel question, and prints the itinerary and every agent's task id, checked with GetTask on
 * each agent. Exits 0 when the trip is booked, 1 on any failure or after `timeoutMs`.
 */
export interface TravelDemoOptions {
  /** The compiled apps (`dist/apps`). Default: the apps next to this file's. */
  appsDir?: string;
  /** The whole run, agents' start and stop included. Default 60 s. */
  timeoutMs?: number;
  request?: string;
  /** Where the story goes. Default stdout. */
  print?: (line: string) => void;
  /** Extra environment of the agents (e.g. `STEP_DELAY_MS` for a faster flight agent). */
  env?: Readonly<Record<string, string>>;
}

export interface TravelDemoResult {
  /** The orchestrator's task, completed. */
  task: Task;
  itinerary: Itinerary;
  /** Agent name → its task id, the orchestrator's included. */
  taskIds: Record<string, string>;
}

export const DEFAULT_REQUEST = "arrange next week's trip to Lisbon";

export async function runTravelDemo(options: TravelDemoOptions = {}): Promise<TravelDemoResult> {
  const print = options.print ?? ((line: string) => console.log(line));
  const signal = AbortSignal.timeout(options.timeoutMs ?? 60_000);
  const appsDir = options.appsDir ?? fileURLToPath(new URL('../../', import.meta.url));

  print('Starting the calendar (gRPC), flight, hotel and orchestrator agents, each its own process on loopback…');
  const agents = await launchTravelAgents({ appsDir, signal, env: options.env });
  const clients = new Map<string, A2aAgentClient>();
  // The agents are on loopback over plain http: allowed explicitly, as the client refuses private addresses by default.
  const clientOf = (name: string, cardUrl: string) => {
    const client = new A2aAgentClient({ cardUrl, network: { allowedCidrs: ['127.0.0.1/32'] }, timeoutMs: 10_000 });
    clients.set(name, client);
    return client;
  };
  try {
    for (const agent of agents.all) {
      const card = await clientOf(agent.name, agent.cardUrl).card({ signal });
      const interfaces = card.supportedInterfaces.map((entry) => `${entry.protocolBinding} ${entry.url}`).join(', ');
      print(
        `  ${agent.name.padEnd(12)} ${card.name}: ${card.skills.map((skill) => skill.id).join(', ')} — ${interfaces}`,
      );
    }
    const orchestrator = clients.get('orchestrator')!;

    print(`\nYou → orchestrator: ${options.request ?? DEFAULT_REQUEST}`);
    let task = await follow(orchestrator.stream(options.request ?? DEFAULT_REQUEST, { signal }), undefined, print);
    let answered = 0;
    for (let pending = pendingQuestionOf(task); pending; pending = pendingQuestionOf(task)) {
      if (++answered > 3) throw new Error('The orchestrator keeps asking; giving up.');
      const answer = cheapest(pending);
      print(`\nYou → orchestrator: ${answer}, please. (the cheapest of the ${pending.options.length})`);
      task = await follow(
        orchestrator.stream(
          { taskId: task.id, contextId: task.contextId, parts: [{ text: `${answer}, please.` }] },
          { signal },
        ),
        task,
        print,
      );
    }
    if (task.status.state !== 'TASK_STATE_COMPLETED')
      throw new Error(`The trip ended ${task.status.state}: ${textOf(task.status.message)}`);

    const itinerary = itineraryOf(task);
    print('\nItinerary');
    print(`  ${textOf(task.status.message)}`);
    print(indent(JSON.stringify(itinerary, null, 2)));

    print('\nTask ids (each read back from its agent with GetTask)');
    const taskIds: Record<string, string> = { orchestrator: task.id };
    print(`  ${'orchestrator'.padEnd(12)} ${task.id}  ${task.status.state}`);
    for (const [need, ref] of Object.entries(itinerary.tasks)) {
      const client = clients.get(ref.agent);
      if (!client) throw new Error(`The itinerary names an agent the demo did not start: ${ref.agent}`);
      const workerTask = await client.getTask(ref.taskId, { signal });
      const binding = (await client.card({ signal })).supportedInterfaces[0]?.protocolBinding;
      print(
        `  ${ref.agent.padEnd(12)} ${ref.taskId}  ${workerTask.status.state}  (${need}, skill ${ref.skill}, over ${binding})`,
      );
      if (workerTask.status.state !== 'TASK_STATE_COMPLETED')
        throw new Error(`The ${ref.agent} task ${ref.taskId} is ${workerTask.status.state}`);
      taskIds[ref.agent] = ref.taskId;
    }
    return { task, itinerary, taskIds };
  } catch (error) {
    for (const agent of agents.all)
      print(`\n--- the last of what the ${agent.name} agent printed ---\n${agent.output().slice(-4000)}`);
    if (signal.aborted)
      throw new Error(`The demo did not finish in ${options.timeoutMs ?? 60_000} ms`, { cause: error });
    throw error;
  } finally {
    await Promise.all([...clients.values()].map((client) => client.close()));
    await agents.stop();
  }
}

/**
 * Prints a stream's events as they come (but the snapshot a follow-up's stream starts with, which `known` already
 * told); resolves with the task as it stands when the stream ends.
 */
async function follow(
  stream: ReturnType<A2aAgentClient['stream']>,
  known: Task | undefined,
  print: (line: string) => void,
): Promise<Task> {
  let task: Task | undefined;
  for await (const event of iterate(stream)) {
    task = applied(task, event);
    const unchanged =
      'task' in event && event.task.id === known?.id && event.task.status.timestamp === known.status.timestamp;
    const line = unchanged ? undefined : describe(event);
    if (line) print(`  ${line}`);
  }
  if (!task) throw new Error('The orchestrator ended its stream without a task');
  return task;
}

/** The task with one stream event applied: what a reader of the stream knows of it. */
function applied(task: Task | undefined, event: StreamResponse): Task | undefined {
  if ('task' in event) return event.task;
  if ('message' in event) throw new Error(`The orchestrator answered with a message: ${textOf(event.message)}`);
  if (!task) return task;
  if ('statusUpdate' in event) return { ...task, status: event.statusUpdate.status };
  const { artifact, append } = event.artifactUpdate;
  const artifacts = [...(task.artifacts ?? [])];
  const index = artifacts.findIndex((known) => known.artifactId === artifact.artifactId);
  if (index < 0) artifacts.push(artifact);
  else
    artifacts[index] = append
      ? { ...artifacts[index], parts: [...artifacts[index].parts, ...artifact.parts] }
      : artifact;
  return { ...task, artifacts };
}

function describe(event: StreamResponse): string | undefined {
  if ('task' in event)
    return `[${stateName(event.task.status.state)}] task ${event.task.id}${said(event.task.status.message)}`;
  if ('statusUpdate' in event)
    return `[${stateName(event.statusUpdate.status.state)}]${said(event.statusUpdate.status.message)}`;
  if ('artifactUpdate' in event)
    return `[artifact] ${event.artifactUpdate.artifact.name ?? event.artifactUpdate.artifact.artifactId}`;
  return undefined;
}

function said(message: Message | undefined): string {
  const text = textOf(message);
  return text ? ` ${text}` : '';
}

function stateName(state: TaskState): string {
  return state.replace('TASK_STATE_', '').toLowerCase().replace('_', '-');
}

/** The user's answer: the name of the cheapest option (the first of equals). */
function cheapest({ options }: PendingHotelQuestion): string {
  const price = (option: JsonObject) => moneyOf(option.total)?.amount ?? Number.POSITIVE_INFINITY;
  return options.reduce((best, option) => (price(option) < price(best) ? option : best)).name;
}

function itineraryOf(task: Task): Itinerary {
  const data = task.artifacts
    ?.find((artifact) => artifact.name === 'itinerary')
    ?.parts.find((part) => part.data !== undefined)?.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data) || typeof data.tasks !== 'object')
    throw new Error('The trip completed without an itinerary');
  return data as unknown as Itinerary;
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}

// Run as a script (`node dist/apps/travel-orchestrator/src/demo.js`), not when imported.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const timeoutMs = 60_000;
  // Should the agents' shutdown itself hang, the process still ends, non-zero, shortly after the run's deadline.
  setTimeout(() => {
    console.error(`The demo did not end within ${timeoutMs / 1000 + 10} s.`);
    process.exit(1);
  }, timeoutMs + 10_000).unref();
  runTravelDemo({ timeoutMs }).then(
    () => {
      console.log('\nDone: the trip is booked.');
      process.exit(0);
    },
    (error: unknown) => {
      console.error(`\nThe demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exit(1);
    },
  );
}
