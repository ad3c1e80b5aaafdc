import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DEFAULT_MAX_HISTORY } from '../a2a.constants.js';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import type { StatusOrArtifactEvent } from '../bus/event-bus.js';
import type { TaskScope } from '../context/call-context.js';
import { A2aError } from '../errors/a2a.error.js';
import { UnexpectedErrorReporter } from '../errors/unexpected-error.reporter.js';
import { A2aObservability } from '../observability/a2a-observability.js';
import type { Message, Task } from '../protocol/a2a.types.js';
import type { SkillEvent } from '../skills/skill-event.js';
import { A2A_TASK_STORE, ConcurrentModificationError, type StoredTask, type TaskStore } from '../store/task.store.js';
import { replyMessage } from '../task/agent-message.js';
import { now } from '../task/now.js';
import { applyChange, type TaskChange } from '../task/task-reducer.js';
import { isTerminal, settlesSend } from '../task/task-states.js';
import { maxJsonDepthOf } from './engine-options.js';
import { LeaseKeeper } from './lease.keeper.js';
import { RunRegistry } from './run.registry.js';
import { tooDeepInSkillEvent } from './skill-event-depth.js';
import { stateAfter, toStreamEvent } from './skill-stream-event.js';
import type { TaskRun } from './task-run.js';
import type { TaskSnapshot } from './task-stream.js';
import { TaskWriter, type CommitOptions } from './task.writer.js';

const INTERNAL_FAILURE_TEXT = 'The agent failed while processing the message.';
const SHUTDOWN_FAILURE_TEXT = 'The agent shut down before this task finished; send the message again.';
/** Most artifact chunks committed in one write. */
const MAX_BATCH = 64;

/**
 * Commits what a run writes, one change at a time or a batch in one write: the message it handles, what its skill
 * emits, and its failure. It keeps no copy of a task: a run knows only the state and version it last committed.
 */
@Injectable()
export class RunCommitter {
  private readonly logger = new Logger('A2aEngine');
  private readonly maxHistory: number;
  private readonly maxJsonDepth: number;

  constructor(
    @Inject(A2A_TASK_STORE) private readonly store: TaskStore,
    private readonly writer: TaskWriter,
    private readonly runs: RunRegistry,
    private readonly errors: UnexpectedErrorReporter,
    private readonly observability: A2aObservability,
    @Inject(A2A_MODULE_OPTIONS) options: A2aModuleOptions,
    @Optional() private readonly leases?: LeaseKeeper,
  ) {
    this.maxHistory = options.limits?.maxHistoryLength ?? DEFAULT_MAX_HISTORY;
    this.maxJsonDepth = maxJsonDepthOf(options);
  }

  /** Adds a follow-up to the history of `stored` (the task as read), and to `stored.task`; returns the new version. */
  async addMessage(stored: StoredTask, scope: TaskScope, userMessage: Message): Promise<number> {
    const task = stored.task;
    const change: TaskChange = { historyMessage: userMessage };
    const version = await this.store.update(task.id, scope, stored.version, [change]);
    this.observability.messageReceived(task.id, task.contextId, userMessage, scope);
    applyChange(task, change, this.maxHistory);
    return version;
  }

  /** Gives a follow-up's caller its first answer, once the run's lease shows it (see {@link commitChanges}). */
  async answer(run: TaskRun, first: TaskSnapshot): Promise<void> {
    if (this.leases) await this.leases.acquired(run.taskId);
    run.first.resolve(first);
  }

  /**
   * The events gathered while the task was being written (or before its first write): checked one by one in order,
   * committed together; what a skill emits after a terminal state is dropped, as it would be one at a time.
   */
  async writeBatch(run: TaskRun, events: SkillEvent[], userMessage: Message): Promise<void> {
    // Events that come from now on start a batch of their own, written after this one.
    if (run.batch === events) run.batch = undefined;
    const changes: StatusOrArtifactEvent[] = [];
    let state = run.state;
    for (const event of events) {
      if (run.ended) return;
      const tooDeep = tooDeepInSkillEvent(event, this.maxJsonDepth);
      if (tooDeep !== undefined || event.kind === 'reply') {
        if (changes.length > 0) await this.commitChanges(run, changes.splice(0), userMessage);
        if (run.ended) return;
        if (tooDeep !== undefined) return this.failRun(run, this.tooDeepError(run, tooDeep), userMessage);
        await this.onSkillEvent(run, event, userMessage);
        continue;
      }
      const change = toStreamEvent(run, event, this.logger, state);
      if (!change) continue;
      changes.push(change);
      if ('statusUpdate' in change) state = change.statusUpdate.status.state;
      if (state !== undefined && isTerminal(state)) break;
      if (changes.length === MAX_BATCH) await this.commitChanges(run, changes.splice(0), userMessage);
    }
    if (changes.length > 0 && !run.ended) await this.commitChanges(run, changes, userMessage);
  }

  async onSkillEvent(run: TaskRun, event: SkillEvent, userMessage: Message): Promise<void> {
    if (run.ended) return;
    const tooDeep = tooDeepInSkillEvent(event, this.maxJsonDepth);
    if (tooDeep !== undefined) return this.failRun(run, this.tooDeepError(run, tooDeep), userMessage);
    if (event.kind === 'reply') {
      if (run.state !== undefined)
        return this.failRun(
          run,
          new Error(`skill "${run.skill.card.id}" replied with a Message on existing task ${run.taskId}`),
          userMessage,
        );
      const reply = replyMessage(event.message, run.contextId);
      await this.recordReply(run, userMessage.messageId, reply);
      run.first.resolve({ message: reply });
      return this.runs.end(run);
    }
    const change = toStreamEvent(run, event, this.logger);
    if (change) await this.commitChanges(run, [change], userMessage);
  }

  async onSkillError(run: TaskRun, error: unknown, userMessage: Message): Promise<void> {
    if (run.ended) return;
    if (error instanceof A2aError && run.state === undefined) {
      // A skill may refuse a new message with a protocol error (e.g. bad input): the caller gets that error.
      run.first.reject(error);
      return this.runs.end(run);
    }
    if (error instanceof ConcurrentModificationError) return this.onWriteConflict(run, error, userMessage);
    return this.failRun(run, error, userMessage);
  }

  /** Ends the task FAILED with a safe message; the real error goes to the log, with its stack, and to `onUnexpectedError`. */
  async failRun(run: TaskRun, error: unknown, userMessage: Message): Promise<void> {
    this.logger.error(
      `Skill "${run.skill.card.id}" failed on task ${run.taskId}`,
      error instanceof Error ? error.stack : String(error),
    );
    this.errors.report(error);
    run.trace?.fail(error);
    return this.recordFailure(run, INTERNAL_FAILURE_TEXT, userMessage);
  }

  /** Shutdown's deadline passed: the skill is stopped, and its task FAILED so that nobody waits for it. */
  failAtShutdown(run: TaskRun): Promise<void> {
    this.logger.warn(`Task ${run.taskId} was still running at shutdown: it is marked FAILED`);
    return this.recordFailure(run, SHUTDOWN_FAILURE_TEXT, run.userMessage!);
  }

  /**
   * Keeps a direct reply with the claim of the message it answers, before the caller has it: a retried send gets the
   * same message, not a second run. The store drops the run's lease in that write. A failure costs only that.
   */
  private async recordReply(run: TaskRun, messageId: string, reply: Message): Promise<void> {
    if (!this.store.recordReply || !this.store.claimMessageId) return;
    if (this.leases) await this.leases.releasedByWrite(run.taskId);
    try {
      await this.store.recordReply(run.scope, messageId, run.taskId, reply);
    } catch (error) {
      this.logger.warn(
        `Could not record the reply to message ${messageId}: a retried send will run skill "${run.skill.card.id}" again (${error instanceof Error ? error.message : String(error)})`,
      );
      // The lease that write would have dropped.
      if (this.leases) await this.store.leases?.release(run.taskId, this.leases.replicaId).catch(() => undefined);
    }
  }

  /**
   * How a run's own write is made: with leases, only while this replica holds the task's lease (once the store has
   * granted it), so that a run fenced out by another replica writes nothing more. A run whose lease the store refused
   * (it could not be reached then) writes unfenced, rather than not at all.
   */
  private async runWrite(run: TaskRun): Promise<CommitOptions> {
    const committed = (version: number) => (run.version = version);
    const fenced =
      this.leases !== undefined && this.store.leases !== undefined && (await this.leases.acquired(run.taskId));
    return { committed, alsoTo: run.tellReplica, holder: fenced ? this.leases!.replicaId : undefined };
  }

  /**
   * Commits `changes` (valid, in order, none after a terminal state): the first of a new turn creates the task with
   * the user's message and them applied. An interrupted or ended task holds no lease: the store drops it in the same
   * write, so the next message may run on any replica as soon as its caller has the answer.
   */
  private async commitChanges(run: TaskRun, changes: StatusOrArtifactEvent[], userMessage: Message): Promise<void> {
    const state = stateAfter(changes, run.state);
    const settles = settlesSend(state);
    if (settles && this.leases) await this.leases.releasedByWrite(run.taskId);
    if (run.state === undefined) {
      const first = await this.createTask(run, changes, userMessage);
      // Whoever learns of the task may send its next message to another replica: the lease must show the run by then.
      if (this.leases) await this.leases.acquired(run.taskId);
      run.first.resolve(first);
      // After the first answer, so that a stream of the task opens with the task and then hears these.
      if (first.version < run.version)
        this.writer.announce(run.taskId, run.scope, first.version, changes.slice(1), run.tellReplica);
    } else {
      await this.writer.commitMany(run.taskId, run.scope, run.version, changes, await this.runWrite(run));
      run.state = state;
    }
    if (isTerminal(state)) return this.runs.end(run);
  }

  /**
   * Creates the task of a new turn: SUBMITTED with the user's message and the first of `changes` applied (version 1),
   * the others logged after it in the same write, or, for `collapseFirstWrite`, applied to version 1 as well. The first
   * answer: the task as created.
   */
  private async createTask(
    run: TaskRun,
    changes: StatusOrArtifactEvent[],
    userMessage: Message,
  ): Promise<TaskSnapshot> {
    const task: Task = {
      id: run.taskId,
      contextId: run.contextId,
      status: { state: 'TASK_STATE_SUBMITTED', timestamp: now() },
      history: [userMessage],
    };
    const [first, ...rest] = changes;
    applyChange(task, first, this.maxHistory);
    const statusAtFirst = task.status;
    const collapsed = run.collapseFirstWrite === true && rest.length > 0;
    if (collapsed) for (const change of rest) applyChange(task, change, this.maxHistory);
    // The store copies what it is given: `task` stays this run's own, the task as created.
    const stored = await this.store.create(task, run.skill.card.id, run.scope, collapsed ? [] : rest);
    // Observers hear of a creation that folded several events as of one event at a time (logged ones when announced).
    this.observability.taskCreated(
      collapsed ? { ...task, status: statusAtFirst } : task,
      run.scope,
      userMessage,
      first,
    );
    if (collapsed) for (const change of rest) this.observability.committed(run.taskId, run.scope, change);
    run.state = stored.task.status.state;
    run.version = stored.version;
    return collapsed ? { task: stored.task, version: stored.version } : { task, version: 1 };
  }

  private tooDeepError(run: TaskRun, path: string): Error {
    return new Error(
      `skill "${run.skill.card.id}" emitted a value nested deeper than ${this.maxJsonDepth} levels (limits.maxJsonDepth) at ${path}`,
    );
  }

  /**
   * A write of the run lost to another writer under the task's version: the fencing of a stale owner. The task was
   * ended elsewhere (a cancel whose signal did not come), or another replica took the run over (it reaped this
   * one's lease): the skill stops quietly here, and the callers here read the task. Only a run that still holds the
   * lease of a task still open has a real rival, which is a bug: FAILED, as for any error.
   */
  private async onWriteConflict(run: TaskRun, error: ConcurrentModificationError, userMessage: Message): Promise<void> {
    const stored = await this.store.get(run.taskId, run.scope).catch(() => undefined);
    const ended = stored !== undefined && isTerminal(stored.task.status.state);
    const holder =
      !ended && this.leases
        ? await this.store.leases?.holder(run.taskId).catch(() => undefined)
        : this.leases?.replicaId;
    if (run.ended) return;
    if (!ended && holder === this.leases?.replicaId) {
      // FAILED goes on top of what the rival wrote.
      if (stored) run.version = stored.version;
      return this.failRun(run, error, userMessage);
    }
    this.logger.warn(
      `Task ${run.taskId} was ${ended ? `ended (${stored!.task.status.state})` : 'taken over'} by another writer: its skill stops here`,
    );
    this.runs.stop(run);
    this.writer.settled(run.taskId, stored?.version ?? run.version, run.tellReplica);
  }

  /** Writes FAILED with `text` (creating the task if the skill had not), then ends the run. */
  private async recordFailure(run: TaskRun, text: string, userMessage: Message): Promise<void> {
    if (run.ended) return;
    const failed = toStreamEvent(run, { kind: 'status', state: 'TASK_STATE_FAILED', message: text }, this.logger);
    if (failed) {
      try {
        if (this.leases) await this.leases.releasedByWrite(run.taskId);
        if (run.state === undefined) {
          run.first.resolve(await this.createTask(run, [failed], userMessage));
        } else {
          run.version = await this.writer.commit(run.taskId, run.scope, run.version, failed, await this.runWrite(run));
          run.state = 'TASK_STATE_FAILED';
        }
      } catch (writeError) {
        // The store refused the write (e.g. it has evicted the task): the run must still end, or its callers wait forever.
        this.logger.error(
          `Could not record the failure of task ${run.taskId}`,
          writeError instanceof Error ? writeError.stack : String(writeError),
        );
      }
    }
    return this.runs.end(run);
  }
}
