import type { Attributes, Histogram, MeterProvider, UpDownCounter } from '@opentelemetry/api';
import { isTerminal } from '../task/task-states.js';
import type { TaskState } from '../protocol/a2a.types.js';
import type { OpenTelemetryApi } from './otel-api.js';
import { A2aAttributes, A2aMetricNames } from './observability.names.js';

/** Most tasks whose current state (and since when) a replica remembers; beyond it, the least recently changed go. */
export const MAX_CLOCKED_TASKS = 100_000;

/** Bucket bounds of the time-in-state histogram, in seconds: from a skill's first event to an hour-long wait for input. */
const TIME_IN_STATE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600,
];

interface Instruments {
  tasks: UpDownCounter;
  timeInState: Histogram;
  openStreams: UpDownCounter;
}

/**
 * The agent's metrics, from what the engine commits, so they are the same whichever binding a call came by:
 *
 * - `a2a.tasks` (UpDownCounter, attribute `a2a.task.state`): +1 for the state a task enters, −1 for the state it
 *   leaves; terminal states only grow (the store's retention does not count).
 * - `a2a.task.state.duration` (Histogram, seconds, attribute `a2a.task.state`): how long a task stayed in a state,
 *   recorded when it leaves it (a terminal state is never left).
 * - `a2a.streams.open` (UpDownCounter, attributes `a2a.binding`, `a2a.operation`).
 *
 * A replica knows the state of the tasks it created or changed (at most {@link MAX_CLOCKED_TASKS}); a change it
 * commits to a task it did not know (a cancel or a reaped lease of a task another replica ran) counts the new state
 * only, and that task stays counted in its old state where it was known.
 *
 * Instruments are made from the global meter provider and made again when another is registered, so the SDK may be
 * set up before or after the app; with none registered, every call is a comparison and a return.
 */
export class TaskMetrics {
  private provider: MeterProvider | undefined;
  private instruments: Instruments | undefined;
  /** Each known open task's state, and since when (performance.now()); terminal tasks are forgotten. */
  private readonly clock = new Map<string, { state: TaskState; since: number }>();
  private readonly stateAttributes = new Map<TaskState, Attributes>();

  constructor(
    private readonly api: OpenTelemetryApi,
    private readonly meterName: string,
  ) {}

  /** The task is now in `state`: created in it, or moved to it by a committed status event. */
  entered(taskId: string, state: TaskState): void {
    const instruments = this.current();
    if (!instruments) return;
    const now = performance.now();
    const previous = this.clock.get(taskId);
    if (previous) {
      // A status update that keeps the state (WORKING with news) changes neither count nor clock.
      if (previous.state === state) return;
      const left = this.attributesOf(previous.state);
      instruments.tasks.add(-1, left);
      instruments.timeInState.record((now - previous.since) / 1000, left);
      this.clock.delete(taskId);
    }
    instruments.tasks.add(1, this.attributesOf(state));
    if (isTerminal(state)) return;
    this.clock.set(taskId, { state, since: now });
    if (this.clock.size > MAX_CLOCKED_TASKS) this.clock.delete(this.clock.keys().next().value!);
  }

  /** A stream opened; the function returned closes it (call it once). Undefined when no meter records. */
  streamOpened(attributes: Attributes): (() => void) | undefined {
    const instruments = this.current();
    if (!instruments) return undefined;
    instruments.openStreams.add(1, attributes);
    return () => instruments.openStreams.add(-1, attributes);
  }

  /** The instruments of the registered meter provider; undefined while none is registered. */
  private current(): Instruments | undefined {
    const provider = this.api.metrics.getMeterProvider();
    if (provider !== this.provider) this.use(provider);
    return this.instruments;
  }

  private use(provider: MeterProvider): void {
    this.provider = provider;
    this.clock.clear();
    const meter = provider.getMeter(this.meterName);
    if (meter === this.api.createNoopMeter()) {
      this.instruments = undefined;
      return;
    }
    this.instruments = {
      tasks: meter.createUpDownCounter(A2aMetricNames.tasks, { description: 'Tasks in each state', unit: '{task}' }),
      timeInState: meter.createHistogram(A2aMetricNames.timeInState, {
        description: 'Time a task spent in a state, recorded when it leaves it',
        unit: 's',
        advice: { explicitBucketBoundaries: TIME_IN_STATE_BUCKETS },
      }),
      openStreams: meter.createUpDownCounter(A2aMetricNames.openStreams, {
        description: 'Open SendStreamingMessage and SubscribeToTask streams',
        unit: '{stream}',
      }),
    };
  }

  private attributesOf(state: TaskState): Attributes {
    let attributes = this.stateAttributes.get(state);
    if (!attributes) this.stateAttributes.set(state, (attributes = { [A2aAttributes.state]: state }));
    return attributes;
  }
}
