import 'reflect-metadata';
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TravelAgentName } from '../../../apps/travel-orchestrator/src/travel-agents.launcher.js';
import { A2aAgentClient, type AgentCard, type Part, type Task } from '../../../libs/a2a/src/client.js';
import type { A2aArtifactAuditRecord, A2aAuditRecord } from '../../../libs/a2a/src/audit/a2a-audit.sink.js';
import {
  LOOPBACK,
  playTrip,
  startTravelAgentsInProcess,
  type InProcessTravelAgents,
  type PlayedTrip,
} from './trip-in-process.js';

/**
 * The audit records of one scripted trip: inbound on each worker (what the orchestrator delegated to it), inbound and
 * outbound on the orchestrator (the trip it was asked for; what it delegated and saw come back), with every artifact's
 * SHA-256 recomputed here from the tasks the agents hold (RFC 8785 with `canonicalize`, a JCS implementation other than
 * the library's), and both sides of each hand-off agreeing on the messages and the digests. The four agents run in
 * this process (see `trip-in-process.ts`) so their sinks are arrays this test reads.
 */

const WORKERS = ['calendar', 'flights', 'hotels'] as const;
type Worker = (typeof WORKERS)[number];
/** The itinerary's name of each worker's part of the trip. */
const NEED_OF: Record<Worker, string> = { calendar: 'free-days', flights: 'flight', hotels: 'hotel' };

const records: Record<TravelAgentName, A2aAuditRecord[]> = { calendar: [], flights: [], hotels: [], orchestrator: [] };
let agents: InProcessTravelAgents;
const clients = {} as Record<TravelAgentName, A2aAgentClient>;
let trip: PlayedTrip;
/** Each worker's task, as it holds it now, and its card. */
const workerTasks = {} as Record<Worker, Task>;
const cards = {} as Record<TravelAgentName, AgentCard>;

const sha256OfJcs = (parts: readonly Part[]) => createHash('sha256').update(canonicalize(parts)!, 'utf8').digest('hex');
const lastState = (trail: readonly A2aAuditRecord[], taskId: string) =>
  trail.filter((r) => r.taskId === taskId && r.kind === 'state').at(-1);

beforeAll(async () => {
  agents = await startTravelAgentsInProcess({
    audit: Object.fromEntries(
      (Object.keys(records) as TravelAgentName[]).map((name) => [
        name,
        { record: (record: A2aAuditRecord) => void records[name].push(record) },
      ]),
    ),
  });
  for (const name of Object.keys(records) as TravelAgentName[]) {
    clients[name] = new A2aAgentClient({ cardUrl: agents[name].url, network: LOOPBACK, timeoutMs: 10_000 });
    cards[name] = await clients[name].card();
  }
  trip = await playTrip(clients.orchestrator);
  for (const worker of WORKERS)
    workerTasks[worker] = await clients[worker].getTask(trip.itinerary.tasks[NEED_OF[worker]].taskId);
  // The last records of a task are made as its final events are committed, which may be just after the answer.
  const settled = () =>
    WORKERS.every(
      (worker) =>
        (lastState(records[worker], workerTasks[worker].id) as { state?: string } | undefined)?.state ===
        'TASK_STATE_COMPLETED',
    ) &&
    (lastState(records.orchestrator, trip.done.id) as { state?: string } | undefined)?.state === 'TASK_STATE_COMPLETED';
  for (let i = 0; i < 100 && !settled(); i++) await sleep(20);
}, 25_000);

afterAll(async () => {
  await Promise.all(Object.values(clients).map((client) => client.close()));
  await agents?.close();
});

/** A worker's task's records: inbound on the worker, outbound on the orchestrator. */
function trailsOf(worker: Worker): { inbound: A2aAuditRecord[]; outbound: A2aAuditRecord[] } {
  const taskId = workerTasks[worker].id;
  return {
    inbound: records[worker].filter((record) => record.taskId === taskId),
    outbound: records.orchestrator.filter((record) => record.taskId === taskId),
  };
}

const artifactsOf = (trail: readonly A2aAuditRecord[]) =>
  trail.filter((record): record is A2aArtifactAuditRecord => record.kind === 'artifact');
const statesOf = (trail: readonly A2aAuditRecord[]) =>
  trail.flatMap((record) => (record.kind === 'state' ? [record.state] : []));
const sentMessageIds = (trail: readonly A2aAuditRecord[]) =>
  trail.flatMap((record) => (record.kind === 'message' && record.role === 'ROLE_USER' ? [record.messageId] : []));

/**
 * The digests a task's artifacts were recorded with, recomputed from the task: one per artifact, but one per part for
 * an artifact that was streamed in chunks of one part each (the flight offers).
 */
function expectedDigests(task: Task, chunked: readonly string[] = []): string[] {
  return (task.artifacts ?? []).flatMap((artifact) =>
    chunked.includes(artifact.name ?? '')
      ? artifact.parts.map((part) => sha256OfJcs([part]))
      : [sha256OfJcs(artifact.parts)],
  );
}

describe('the audit trail of one trip', () => {
  it('the trip completed, and every record says which way it went and which agent card served it', () => {
    expect(trip.done.status.state).toBe('TASK_STATE_COMPLETED');
    for (const worker of WORKERS) {
      expect(records[worker].length).toBeGreaterThan(0);
      for (const record of records[worker])
        expect(record).toMatchObject({
          direction: 'inbound',
          principalId: 'anonymous',
          tenant: '',
          agent: { cardVersion: cards[worker].version },
        });
    }
    const { inbound, outbound } = {
      inbound: records.orchestrator.filter((r) => r.direction === 'inbound'),
      outbound: records.orchestrator.filter((r) => r.direction === 'outbound'),
    };
    expect(new Set(inbound.map((record) => record.taskId))).toEqual(new Set([trip.done.id]));
    expect(new Set(outbound.map((record) => record.taskId))).toEqual(
      new Set(WORKERS.map((worker) => workerTasks[worker].id)),
    );
    for (const worker of WORKERS) {
      for (const record of trailsOf(worker).outbound)
        expect(record).toMatchObject({
          principalId: 'anonymous',
          tenant: '',
          agent: { cardVersion: cards[worker].version },
        });
    }
  });

  it.each([
    ['calendar', [] as string[]],
    ['flights', ['offers']],
    ['hotels', [] as string[]],
  ] as const)(
    "%s: the artifacts' digests, recomputed, on both sides of the hand-off, in the order they were made",
    (worker, chunked) => {
      const { inbound, outbound } = trailsOf(worker);
      const expected = expectedDigests(workerTasks[worker], chunked);
      expect(expected.length).toBeGreaterThan(0);
      expect(artifactsOf(inbound).map((record) => record.sha256)).toEqual(expected);
      expect(artifactsOf(outbound).map((record) => record.sha256)).toEqual(expected);
      expect(artifactsOf(outbound).map((record) => [record.artifactId, record.append, record.lastChunk])).toEqual(
        artifactsOf(inbound).map((record) => [record.artifactId, record.append, record.lastChunk]),
      );
    },
  );

  it.each(WORKERS)(
    '%s: the messages the orchestrator sent are the ones the worker received, and the states agree',
    (worker) => {
      const { inbound, outbound } = trailsOf(worker);
      expect(sentMessageIds(outbound)).toEqual(sentMessageIds(inbound));
      expect(sentMessageIds(inbound).length).toBe(worker === 'hotels' ? 2 : 1);
      // What the orchestrator saw is what the worker went through, in order (a blocking send sees the end state only).
      const seen = statesOf(outbound);
      const went = statesOf(inbound);
      expect(seen.at(-1)).toBe('TASK_STATE_COMPLETED');
      expect(went.at(-1)).toBe('TASK_STATE_COMPLETED');
      let at = 0;
      for (const state of seen) {
        at = went.indexOf(state, at);
        expect(at).toBeGreaterThanOrEqual(0);
      }
    },
  );

  it("hotels: the question the hotel agent asked is in the orchestrator's outbound trail, as the agent's message", () => {
    const { outbound } = trailsOf('hotels');
    const asking = outbound.find((record) => record.kind === 'state' && record.state === 'TASK_STATE_INPUT_REQUIRED');
    expect(asking).toBeDefined();
    const questionId = (asking as { statusMessageId?: string }).statusMessageId;
    expect(outbound).toContainEqual(
      expect.objectContaining({
        kind: 'message',
        role: 'ROLE_AGENT',
        messageId: questionId,
        partKinds: ['text', 'data'],
      }),
    );
  });

  it("flights: the streamed offers' chunks, one record each, in both trails", () => {
    const { inbound, outbound } = trailsOf('flights');
    const chunks = (trail: A2aAuditRecord[]) =>
      artifactsOf(trail)
        .filter((record) => record.name === 'offers')
        .map((record) => [record.append, record.lastChunk]);
    expect(chunks(inbound)).toEqual([
      [false, false],
      [true, false],
      [true, true],
    ]);
    expect(chunks(outbound)).toEqual(chunks(inbound));
  });

  it("the orchestrator: the user's two messages, its states, and its own artifacts' digests, recomputed", async () => {
    const own = records.orchestrator.filter((record) => record.direction === 'inbound');
    // The trip's request, and the answer to the hotel question.
    expect(sentMessageIds(own)).toHaveLength(2);
    const task = await clients.orchestrator.getTask(trip.done.id, { historyLength: 20 });
    expect(sentMessageIds(own)).toEqual(
      task.history!.filter((message) => message.role === 'ROLE_USER').map((message) => message.messageId),
    );
    expect(artifactsOf(own).map((record) => [record.name, record.sha256])).toEqual(
      (task.artifacts ?? []).map((artifact) => [artifact.name, sha256OfJcs(artifact.parts)]),
    );
    expect(statesOf(own)).toEqual(
      expect.arrayContaining(['TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED']),
    );
    expect(statesOf(own).at(-1)).toBe('TASK_STATE_COMPLETED');
  });
});
