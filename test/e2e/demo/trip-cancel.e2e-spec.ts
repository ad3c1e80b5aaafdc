import 'reflect-metadata';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2aAgentClient, type Task } from '../../../libs/a2a/src/client.js';
import { A2A_TASK_STORE, type TaskStore } from '../../../libs/a2a/src/store.js';
import { LOOPBACK, startTravelAgentsInProcess, type InProcessTravelAgents } from './trip-in-process.js';

/**
 * A trip canceled while the flight agent works for it: the orchestrator's task ends CANCELED, and so does the flight
 * agent's task, which leaving its stream alone would not stop (spec §3.5.2).
 */
let agents: InProcessTravelAgents;
let user: A2aAgentClient;

beforeAll(async () => {
  // Slow enough that the cancel lands while the flight agent is still streaming its offers.
  agents = await startTravelAgentsInProcess({ flightStepDelayMs: 400 });
  user = new A2aAgentClient({ cardUrl: agents.orchestrator.url, network: LOOPBACK, timeoutMs: 10_000 });
}, 30_000);

afterAll(async () => {
  await user?.close();
  await agents?.close();
});

/**
 * The flight agent's one task, read from its store: the orchestrator calls it without credentials, and ListTasks is
 * refused to anonymous callers, who reach a task only by its id.
 */
async function flightTaskOnceSettled(): Promise<Task> {
  const store = agents.flights.app.get<TaskStore>(A2A_TASK_STORE);
  for (let attempt = 0; attempt < 100; attempt++) {
    const { tasks } = await store.list({ pageSize: 1 }, { tenant: '', owner: 'anonymous' });
    const [task] = tasks;
    if (task && task.status.state !== 'TASK_STATE_WORKING' && task.status.state !== 'TASK_STATE_SUBMITTED') return task;
    await sleep(50);
  }
  throw new Error('The flight task is still running');
}

it("cancels the flight agent's task when the trip is canceled while the flight is being held", async () => {
  let tripId: string | undefined;
  const canceled = new Promise<Task>((resolve, reject) => {
    user.stream("arrange next week's trip to Lisbon").subscribe({
      next: (event) => {
        if ('task' in event) tripId = event.task.id;
        const text = 'statusUpdate' in event ? (event.statusUpdate.status.message?.parts[0]?.text ?? '') : '';
        // The flight agent's first update, passed on: its task is running now.
        if (text.startsWith('flights: ') && tripId) user.cancelTask(tripId).then(resolve, reject);
      },
      error: reject,
    });
  });
  expect((await canceled).status.state).toBe('TASK_STATE_CANCELED');
  const flightTask = await flightTaskOnceSettled();
  expect(flightTask.status.state).toBe('TASK_STATE_CANCELED');
}, 30_000);
