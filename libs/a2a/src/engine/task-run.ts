import type { Subscription } from 'rxjs';
import type { TaskScope } from '../context/call-context.js';
import type { Message, TaskState } from '../protocol/a2a.types.js';
import type { RegisteredSkill } from '../skills/skill.registry.js';
import type { SkillEvent } from '../skills/skill-event.js';
import type { SkillRunTrace } from '../observability/skill-run.trace.js';
import type { TaskSnapshot } from './task-stream.js';

/** One skill run: the handling of one incoming message. */
export interface TaskRun {
  readonly taskId: string;
  readonly contextId: string;
  readonly scope: TaskScope;
  readonly skill: RegisteredSkill;
  /** Made on the skill's first read of `signal`: most skills never look, and a controller costs more than the rest of a run's setup. */
  abort?: AbortController;
  canceled: boolean;
  /** The task's state as this run last committed it (undefined until the first task event of a new task creates it). */
  state?: TaskState;
  /** The version this run's last write produced: a final record of a later version was written by someone else. */
  version: number;
  subscription?: Subscription;
  /** On a bus shared by replicas: the watch that hears a cancel written elsewhere (sent to this replica). */
  cancelWatch?: Subscription;
  /** Resolves once the caller has its first answer: the created (or continued) task, or a direct reply. */
  readonly first: Deferred<{ message: Message } | TaskSnapshot>;
  ended: boolean;
  /** The message the run handles: a failure recorded before the task exists creates it with this in its history. */
  userMessage?: Message;
  /** Events that came while a write of the task was under way (or, see `foldFirstWrite`, before the first one): they go to the store in one write. */
  batch?: SkillEvent[];
  /**
   * A new task's first write waits for the end of the skill's first burst of events (what it emits without waiting on
   * I/O): it creates the task as of the first event and logs the others after it, in one write.
   */
  foldFirstWrite?: boolean;
  /**
   * A blocking send without a webhook, whose caller sees none of the events: the first burst is applied to the task
   * as created (version 1), without logging them, and the caller's answer is that write.
   */
  collapseFirstWrite?: boolean;
  /** A re-run's records also go to the replica that ran the task before (see `EventBus.publish`): its streams may still be open. */
  tellReplica?: string;
  /** The id of SendMessage's inline push config, dropped if the message gets a direct reply instead of a task. */
  pushConfigId?: string;
  /** Which run of this message it is: more than 1 once a restartable skill is run again after its replica died (or handed it over). */
  attempt: number;
  /** The run's span, while a tracer records. */
  trace?: SkillRunTrace;
}

/** The skill's AbortSignal, made on first use. */
export function signalOf(run: TaskRun): AbortSignal {
  if (!run.abort) {
    run.abort = new AbortController();
    if (run.canceled) run.abort.abort();
  }
  return run.abort.signal;
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A run's first answer may be rejected with nobody waiting yet (e.g. a returnImmediately caller that left).
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
