import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_MAX_HISTORY, SKILL_ID_METADATA_KEY } from '../a2a.constants.js';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import { A2aMessages } from '../a2a.messages.js';
import { A2A_EVENT_BUS, type EventBus, type StatusOrArtifactEvent, type TaskEventRecord } from '../bus/event-bus.js';
import { ANONYMOUS_PRINCIPAL, scopeOf, type A2aCallContext, type TaskScope } from '../context/call-context.js';
import { A2aError } from '../errors/a2a.error.js';
import { UnexpectedErrorReporter } from '../errors/unexpected-error.reporter.js';
import { ExtensionRegistry } from '../extensions/extension.registry.js';
import type { Message, SendMessageRequest, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus, TaskStatusUpdateEvent } from '../protocol/a2a.types.js';
import { A2aSecurityPolicy } from '../security/a2a-security.policy.js';
import { A2aTaskAuthorizations } from '../security/task-authorizations.js';
import { A2aPushConfigs } from '../push/push-configs.service.js';
import type { SkillEvent } from '../skills/skill-event.js';
import type { SkillGate } from '../skills/skill-guards.js';
import { invalidInputError } from '../skills/skill-input.compiler.js';
import type { SkillInputResult } from '../skills/skill-input.js';
import { A2A_SKILL_ROUTER, type SkillRouter } from '../skills/skill.router.js';
import { SkillRegistry, type RegisteredSkill } from '../skills/skill.registry.js';
import { copyData } from '../store/data-copy.js';
import type { ExpiredLease, RestartableRun } from '../store/task-leases.js';
import { A2A_TASK_STORE, ConcurrentModificationError, type StoredTask, type TaskStore } from '../store/task.store.js';
import { agentMessage, replyMessage } from '../task/agent-message.js';
import { maxJsonDepthOf } from './engine-options.js';
import { LeaseKeeper } from './lease.keeper.js';
import { acceptsAnyOf } from './media-types.js';
import { textOf } from '../task/message-text.js';
import { now } from '../task/now.js';
import { resendsMessage, reusedMessageIdError, sentBefore } from './retried-message.js';
import { RetriedSend } from './retried-send.js';
import { tooDeepInSkillEvent } from './skill-event-depth.js';
import { skillEvents } from './skill-result.js';
import { applyChange, type TaskChange } from '../task/task-reducer.js';
import { deferred, signalOf, type TaskRun } from './task-run.js';
import type { TaskSnapshot } from './task-stream.js';
import { canTransition, isTerminal, settlesSend } from '../task/task-states.js';
import { TaskWriter, type CommitOptions } from './task.writer.js';
import { A2aObservability } from '../observability/a2a-observability.js';

const INTERNAL_FAILURE_TEXT = 'The agent failed while processing the message.';
const SHUTDOWN_FAILURE_TEXT = 'The agent shut down before this task finished; send the message again.';
export const SHUTTING_DOWN = 'The agent is shutting down; try again shortly';
const DEFAULT_LEASE_TTL_MS = 15_000;
/** Metadata key of the WORKING status a restarted run begins with: which run of the message it is. */
const ATTEMPT_METADATA_KEY = 'nestjs-a2a/attempt';
/** How often the reaper retries writing FAILED when other writers change the task meanwhile. */
const MAX_REAP_ATTEMPTS = 3;
/** How long a retried send waits for the first send's task to appear on another replica, and how often it looks. */
const CLAIM_WAIT_MS = 5_000;
const CLAIM_POLL_MS = 25;
/** How long a claim may go without its run showing up (its lease) before a retry starts one of its own. */
const CLAIM_START_MS = 1_000;
/** Most artifact chunks committed in one write. */
const MAX_BATCH = 64;

/**
 * Runs skills: routes a new message (or a follow-up) to its skill, runs it under the task's lease, and commits what
 * it emits through the {@link TaskWriter}, one change at a time (artifact chunks in batches). It keeps no copy of a
 * task: a run knows only the state and version it last committed, and every answer is read back from the store.
 */
@Injectable()
export class SkillExecutor {
  private readonly logger = new Logger('A2aEngine');
  private readonly runs = new Map<string, TaskRun>();
  /** Runs per owner, kept only when option `security.maxActiveTasksPerPrincipal` caps them. */
  private readonly runsByOwner = new Map<string, number>();
  private readonly maxRunsPerOwner: number;
  /** Set at shutdown: no new run starts. */
  private closing = false;
  /** With a store replicas share: this replica's leases of its runs, and the reaper of other replicas' expired ones. */
  private readonly leases?: LeaseKeeper;
  private readonly maxParts: number;
  private readonly maxHistory: number;
  private readonly maxJsonDepth: number;

  constructor(
    @Inject(A2A_TASK_STORE) private readonly store: TaskStore,
    @Inject(A2A_EVENT_BUS) private readonly bus: EventBus,
    private readonly writer: TaskWriter,
    private readonly skills: SkillRegistry,
    @Inject(A2A_MODULE_OPTIONS) private readonly options: A2aModuleOptions,
    private readonly errors: UnexpectedErrorReporter,
    private readonly security: A2aSecurityPolicy,
    private readonly authorizations: A2aTaskAuthorizations,
    private readonly pushConfigs: A2aPushConfigs,
    private readonly extensions: ExtensionRegistry,
    private readonly observability: A2aObservability,
    @Optional() @Inject(A2A_SKILL_ROUTER) private readonly router?: SkillRouter,
  ) {
    this.maxRunsPerOwner = security.maxActiveTasksPerPrincipal;
    if (store.leases) {
      const ttlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
      const renewMs = options.leaseRenewMs ?? Math.max(1, Math.floor(ttlMs / 3));
      // A renewal that comes after the lease expired would let other replicas reap healthy runs.
      if (renewMs >= ttlMs) throw new Error(A2aMessages.invalidOption('leaseRenewMs', renewMs, `less than leaseTtlMs (${ttlMs})`));
      this.leases = new LeaseKeeper(store.leases, ttlMs, renewMs, {
        lost: (taskId) => this.onLeaseLost(taskId),
        reap: (lease) => this.reapLease(lease),
      }, this.logger);
    }
    this.maxParts = options.limits?.maxPartsPerMessage ?? 100;
    this.maxHistory = options.limits?.maxHistoryLength ?? DEFAULT_MAX_HISTORY;
    this.maxJsonDepth = maxJsonDepthOf(options);
  }

  /**
   * Starts the run for `request`: its `first` answer is the created (or continued) task, or a direct reply. Throws
   * {@link RetriedSend} when the message already went into a task whose run is not here, or was answered by a
   * message (which it then carries). `blocking`: the caller waits
   * for the task to settle, and sees none of the events before (so a new task's first write may collapse them).
   */
  async start(request: SendMessageRequest, call: A2aCallContext, taskId: string, gate?: SkillGate, blocking = false): Promise<TaskRun> {
    const message = request.message;
    if (message.parts.length > this.maxParts) {
      throw A2aError.invalidParams([{ field: 'message.parts', description: `At most ${this.maxParts} parts are accepted` }]);
    }
    if (this.closing) throw new A2aError('Unavailable', SHUTTING_DOWN);
    const scope = scopeOf(call);
    if (message.taskId) return this.continueTask(request, call, scope, gate);
    const skill = await this.route(request, call);
    this.security.authorizeSkill(skill, call.principal);
    await gate?.(skill);
    this.extensions.requireForSkill(skill.card.id, call.extensions);
    this.checkRunsOf(scope);
    this.store.admitTask?.(scope);
    this.checkOutputModes(request, skill);
    const input = await this.readInput(skill, message, []);
    const inline = request.configuration?.taskPushNotificationConfig;
    if (inline) this.pushConfigs.checkInline(inline, call);
    const contextId = message.contextId ?? randomUUID();
    const runMessage: Message = { ...message, contextId, taskId };
    // With leases, the claim takes the run's lease in the same write.
    const lease = this.store.claimMessageId && this.leases?.request(skill.maxAttempts ? restartableRun(runMessage, call, 1) : undefined);
    const claimed = (await this.store.claimMessageId?.(scope, message.messageId, taskId, lease)) ?? taskId;
    if (claimed === taskId && lease) this.leases!.granted(taskId);
    if (claimed !== taskId) {
      // A retried send: the first one's run if it is still here, else its task, never a second run.
      const earlier = this.runs.get(claimed);
      if (earlier && earlier.scope.owner === scope.owner && earlier.scope.tenant === scope.tenant) {
        if (earlier.userMessage && !resendsMessage(earlier.userMessage, message)) throw reusedMessageIdError(message.messageId);
        return earlier;
      }
      const answer = await this.firstAnswerOf(claimed, scope, message.messageId);
      const first = answer?.task && sentBefore(answer.task, message);
      if (first && !resendsMessage(first, message)) throw reusedMessageIdError(message.messageId);
      if (answer) throw new RetriedSend(claimed, answer.reply);
      // The first send's run was abandoned, or its task is gone: nothing to return but a new answer.
    }
    const pushConfigId = inline && (await this.pushConfigs.registerInline(inline, taskId, call));
    const run = this.newRun(taskId, contextId, scope, skill);
    run.pushConfigId = pushConfigId;
    run.foldFirstWrite = true;
    // An inline webhook is told each event, as a stream would be.
    run.collapseFirstWrite = blocking && !inline;
    this.execute(run, runMessage, call, undefined, [], input);
    return run;
  }

  /** Whether a skill runs the task's latest message now, here or (its lease says) on another replica. */
  async isActive(taskId: string): Promise<boolean> {
    return this.runs.has(taskId) || (await this.runningElsewhere(taskId));
  }

  /** Cancel: the skill here (if it runs here) gets its abort signal, and nothing it emits afterwards is written. */
  stop(taskId: string): void {
    const run = this.runs.get(taskId);
    if (run) this.stopRun(run);
  }

  startLeases(): void {
    if (!this.leases) return;
    // Writers elsewhere that end a task running here send the record to this replica (its lease says it runs it).
    this.bus.join?.(this.leases.replicaId);
    this.leases.start();
  }

  /** The replica whose lease says it runs `taskId`, when that is another one: a write ending the task must tell it. */
  async holderElsewhere(taskId: string): Promise<string | undefined> {
    if (!this.leases || !this.store.leases || this.runs.has(taskId)) return undefined;
    const holder = await this.store.leases.holder(taskId);
    return holder === this.leases.replicaId ? undefined : holder;
  }

  /**
   * Shutdown: no new run starts; running skills get until `deadline` to finish; those still running then are stopped
   * and their tasks FAILED with a status message saying so, which ends their streams and answers their callers, or,
   * for a restartable skill with runs left, handed to another replica (see `handOff`).
   */
  async drain(deadline: number): Promise<void> {
    this.closing = true;
    this.leases?.stopReaping();
    while (this.runs.size > 0 && Date.now() < deadline) await sleep(Math.min(20, deadline - Date.now()));
    await Promise.all([...this.runs.values()].map((run) => this.abandonRun(run)));
  }

  stopAll(): void {
    for (const run of this.runs.values()) this.stopRun(run);
    this.leases?.stop();
  }

  // ---- starting runs ----

  private async continueTask(request: SendMessageRequest, call: A2aCallContext, scope: TaskScope, gate?: SkillGate): Promise<TaskRun> {
    const message = request.message;
    const taskId = message.taskId!;
    return this.writer.serialized(taskId, async () => {
      const stored = await this.store.get(taskId, scope);
      if (!stored) throw A2aError.taskNotFound(taskId);
      const task = stored.task;
      if (message.contextId !== undefined && message.contextId !== task.contextId) {
        throw A2aError.invalidParams([{ field: 'message.contextId', description: `Task ${taskId} belongs to context ${task.contextId}` }]);
      }
      // A retried follow-up (its message is in the history already) gets the task, not a second run.
      const earlier = sentBefore(task, message);
      if (earlier && !resendsMessage(earlier, message)) throw reusedMessageIdError(message.messageId);
      if (earlier) throw new RetriedSend(taskId);
      if (isTerminal(task.status.state)) {
        throw new A2aError('UnsupportedOperation', `Task ${taskId} is ${task.status.state} and accepts no more messages`, { taskId });
      }
      if (await this.isActive(taskId)) {
        // Here, or on another replica (its lease says so).
        throw new A2aError('UnsupportedOperation', `Task ${taskId} is still processing an earlier message`, { taskId });
      }
      const skill = this.skills.get(stored.skillId);
      if (!skill) throw new A2aError('Internal', `Task ${taskId} belongs to a skill this agent no longer has`);
      this.security.authorizeSkill(skill, call.principal);
      await gate?.(skill);
      this.extensions.requireForSkill(skill.card.id, call.extensions);
      this.checkRunsOf(scope);
      const input = await this.readInput(skill, message, task.history ?? [], task);
      const inline = request.configuration?.taskPushNotificationConfig;
      if (inline) {
        this.pushConfigs.checkInline(inline, call);
        await this.pushConfigs.registerInline(inline, taskId, call);
      }
      const userMessage: Message = { ...message, contextId: task.contextId, taskId };
      // The skill sees the task before this message; the caller's first answer is the task as this message left it.
      const previous = copyData(task);
      const change: TaskChange = { historyMessage: userMessage };
      const version = await this.store.update(taskId, scope, stored.version, [change]);
      this.observability.messageReceived(taskId, task.contextId, userMessage, scope);
      applyChange(task, change, this.maxHistory);
      const run = this.newRun(taskId, task.contextId, scope, skill);
      run.state = task.status.state;
      run.version = version;
      this.execute(run, userMessage, call, previous, previous.history ?? [], input);
      if (this.leases) await this.leases.acquired(taskId);
      run.first.resolve({ task, version });
      return run;
    });
  }

  private newRun(taskId: string, contextId: string, scope: TaskScope, skill: RegisteredSkill): TaskRun {
    const run: TaskRun = { taskId, contextId, scope, skill, canceled: false, version: 0, first: deferred(), ended: false, attempt: 1 };
    this.runs.set(taskId, run);
    if (this.maxRunsPerOwner !== Infinity) this.runsByOwner.set(scope.owner, (this.runsByOwner.get(scope.owner) ?? 0) + 1);
    return run;
  }

  /** Option `security.maxActiveTasksPerPrincipal`: one caller cannot occupy the agent with runs. */
  private checkRunsOf(scope: TaskScope): void {
    if ((this.runsByOwner.get(scope.owner) ?? 0) >= this.maxRunsPerOwner) {
      throw new A2aError('TooManyRequests', `At most ${this.maxRunsPerOwner} tasks of one caller may run at once`);
    }
  }

  /**
   * How the first send of a retried send's messageId was answered: with its task (`task`), or with a message (`reply`);
   * at once, or, while another replica's lease says that run is still going (it creates the task with the skill's
   * first event), once it is known. Undefined when neither is known: the claim's run was abandoned, or its task is gone.
   */
  private async firstAnswerOf(taskId: string, scope: TaskScope, messageId: string): Promise<{ task?: Task; reply?: Message } | undefined> {
    let sawRun = false;
    for (let waited = 0; ; waited += CLAIM_POLL_MS) {
      // Read before the answers: a run that has stopped holding the lease has written its answer by then.
      const running = this.leases ? await this.runningElsewhere(taskId) : false;
      const stored = await this.store.get(taskId, scope);
      if (stored) return { task: stored.task };
      const reply = await this.store.replyTo?.(scope, messageId);
      if (reply) return { reply };
      // One process: the claim's run would be in `runs`.
      if (!this.leases) return undefined;
      if ((sawRun && !running) || waited >= (sawRun ? CLAIM_WAIT_MS : CLAIM_START_MS)) return undefined;
      sawRun ||= running;
      await sleep(CLAIM_POLL_MS);
    }
  }

  /** Whether another replica's lease says the task's skill runs there now (this replica's own runs are in `runs`). */
  private async runningElsewhere(taskId: string): Promise<boolean> {
    return (await this.holderElsewhere(taskId)) !== undefined;
  }

  private async route(request: SendMessageRequest, call: A2aCallContext): Promise<RegisteredSkill> {
    const hint = request.message.metadata?.[SKILL_ID_METADATA_KEY] ?? request.metadata?.[SKILL_ID_METADATA_KEY];
    const id = typeof hint === 'string' ? hint : await this.router?.route(request.message, this.skills.cards(), call);
    if (id !== undefined) {
      const skill = this.skills.get(id);
      if (!skill) throw A2aError.invalidParams([{ field: 'message.metadata', description: A2aMessages.unknownSkill(id, this.skills.ids()) }]);
      return skill;
    }
    const fallback = this.skills.fallback();
    if (!fallback) throw A2aError.invalidParams([{ field: 'message.metadata', description: A2aMessages.unroutable(this.skills.ids()) }]);
    return fallback;
  }

  /**
   * The message's typed input (`@AgentSkill({ input })`), read and validated; in mode `'reject'` an invalid one is
   * refused here, before anything is stored. Undefined for a skill without `input`.
   */
  private async readInput(skill: RegisteredSkill, message: Message, history: readonly Message[], task?: Task): Promise<SkillInputResult | undefined> {
    if (!skill.input) return undefined;
    const input = await skill.input.read(message, { history, task });
    if (!input.valid && skill.input.mode === 'reject') throw invalidInputError(skill.card.id, input.violations);
    return input;
  }

  /** R35: a caller that accepts none of the skill's output modes gets ContentTypeNotSupportedError. */
  private checkOutputModes(request: SendMessageRequest, skill: RegisteredSkill): void {
    const accepted = request.configuration?.acceptedOutputModes;
    if (!accepted?.length) return;
    const produced = skill.card.outputModes ?? this.options.card.defaultOutputModes ?? ['text/plain'];
    if (!acceptsAnyOf(accepted, produced)) {
      throw new A2aError('ContentTypeNotSupported', `Skill "${skill.card.id}" produces ${produced.join(', ')}; none is in acceptedOutputModes`);
    }
  }

  // ---- running skills ----

  private execute(run: TaskRun, message: Message, call: A2aCallContext, task?: Task, history: readonly Message[] = [], input?: SkillInputResult): void {
    run.userMessage = message;
    if (this.leases && !this.leases.holds(run.taskId)) this.leases.acquire(run.taskId, run.scope, run.skill.maxAttempts ? restartableRun(message, call, run.attempt) : undefined);
    // A replica that ends the task (a cancel) sends the record here: watching this replica alone costs no subscription.
    if (this.bus.spansReplicas) run.cancelWatch = this.bus.watch(run.taskId, { replicaOnly: true }).subscribe((record) => this.onForeignRecord(run, record));
    // An invalid input in mode 'input-required': the task asks for it again, and the skill is not called.
    const events$ = skillEvents(() =>
      input?.valid === false ? [run.skill.input!.invalidEvent(input)] : run.skill.handler.handle({
        message,
        text: textOf(message),
        input: input?.value,
        taskId: run.taskId,
        contextId: run.contextId,
        task,
        history,
        principal: call.principal,
        tenant: call.tenant,
        call,
        extensions: this.extensions.forSkill(run.skill.card.id, call.extensions),
        attempt: run.attempt,
        get signal() {
          return signalOf(run);
        },
        waitForAuthorization: <T>(options?: { timeoutMs?: number }) => this.authorizations.wait(run.taskId, signalOf(run), options?.timeoutMs) as Promise<T>,
      }),
    );
    // The task's write chain keeps the events in order, so they need no operator of their own; a failed write fails
    // the run like a skill error would, and what the skill emits afterwards finds the run ended.
    const onEvent = (event: SkillEvent) => this.onSkillEvent(run, event, message).catch((error: unknown) => this.onSkillError(run, error, message));
    // The skill runs on subscription: with its span active, its own spans and the A2A calls it makes are children of it.
    run.trace = this.observability.skillRunStarted(run.taskId, run.contextId, run.skill.card.id, run.attempt);
    run.subscription = this.observability.within(run.trace, () => events$.subscribe({
      next: (event) => {
        // Events that come while the task is being written (or created) wait and go together: one store write.
        if (run.batch) return void run.batch.push(event);
        // A new task is created once the skill's first burst is over (see `foldFirstWrite`).
        const fold = run.foldFirstWrite === true && run.state === undefined && event.kind !== 'reply';
        if (fold || this.writer.busy(run.taskId)) {
          const batch = (run.batch = [event]);
          return void this.writer.serialized(run.taskId, async () => {
            if (fold) await new Promise<void>((resolve) => setImmediate(resolve));
            return this.writeBatch(run, batch, message).catch((error: unknown) => this.onSkillError(run, error, message));
          });
        }
        void this.writer.serialized(run.taskId, () => onEvent(event));
      },
      error: (error: unknown) => void this.writer.serialized(run.taskId, () => this.onSkillError(run, error, message)),
      complete: () => void this.writer.serialized(run.taskId, () => this.endRun(run)),
    }));
  }

  /**
   * The events gathered while the task was being written (or before its first write): checked one by one in order,
   * committed together; what a skill emits after a terminal state is dropped, as it would be one at a time.
   */
  private async writeBatch(run: TaskRun, events: SkillEvent[], userMessage: Message): Promise<void> {
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
      const change = this.toStreamEvent(run, event, state);
      if (!change) continue;
      changes.push(change);
      if ('statusUpdate' in change) state = change.statusUpdate.status.state;
      if (state !== undefined && isTerminal(state)) break;
      if (changes.length === MAX_BATCH) await this.commitChanges(run, changes.splice(0), userMessage);
    }
    if (changes.length > 0 && !run.ended) await this.commitChanges(run, changes, userMessage);
  }

  private async onSkillEvent(run: TaskRun, event: SkillEvent, userMessage: Message): Promise<void> {
    if (run.ended) return;
    const tooDeep = tooDeepInSkillEvent(event, this.maxJsonDepth);
    if (tooDeep !== undefined) return this.failRun(run, this.tooDeepError(run, tooDeep), userMessage);
    if (event.kind === 'reply') {
      if (run.state !== undefined) return this.failRun(run, new Error(`skill "${run.skill.card.id}" replied with a Message on existing task ${run.taskId}`), userMessage);
      const reply = replyMessage(event.message, run.contextId);
      await this.recordReply(run, userMessage.messageId, reply);
      run.first.resolve({ message: reply });
      return this.endRun(run);
    }
    const change = this.toStreamEvent(run, event);
    if (change) await this.commitChanges(run, [change], userMessage);
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
      this.logger.warn(`Could not record the reply to message ${messageId}: a retried send will run skill "${run.skill.card.id}" again (${error instanceof Error ? error.message : String(error)})`);
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
    const fenced = this.leases !== undefined && this.store.leases !== undefined && (await this.leases.acquired(run.taskId));
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
      if (first.version < run.version) this.writer.announce(run.taskId, run.scope, first.version, changes.slice(1), run.tellReplica);
    } else {
      await this.writer.commitMany(run.taskId, run.scope, run.version, changes, await this.runWrite(run));
      run.state = state;
    }
    if (isTerminal(state)) return this.endRun(run);
  }

  /**
   * Creates the task of a new turn: SUBMITTED with the user's message and the first of `changes` applied (version 1),
   * the others logged after it in the same write, or, for `collapseFirstWrite`, applied to version 1 as well. The first
   * answer: the task as created.
   */
  private async createTask(run: TaskRun, changes: StatusOrArtifactEvent[], userMessage: Message): Promise<TaskSnapshot> {
    const task: Task = { id: run.taskId, contextId: run.contextId, status: { state: 'TASK_STATE_SUBMITTED', timestamp: now() }, history: [userMessage] };
    const [first, ...rest] = changes;
    applyChange(task, first, this.maxHistory);
    const statusAtFirst = task.status;
    const collapsed = run.collapseFirstWrite === true && rest.length > 0;
    if (collapsed) for (const change of rest) applyChange(task, change, this.maxHistory);
    // The store copies what it is given: `task` stays this run's own, the task as created.
    const stored = await this.store.create(task, run.skill.card.id, run.scope, collapsed ? [] : rest);
    // Observers hear of a creation that folded several events as of one event at a time (logged ones when announced).
    this.observability.taskCreated(collapsed ? { ...task, status: statusAtFirst } : task, run.scope, userMessage, first);
    if (collapsed) for (const change of rest) this.observability.committed(run.taskId, run.scope, change);
    run.state = stored.task.status.state;
    run.version = stored.version;
    return collapsed ? { task: stored.task, version: stored.version } : { task, version: 1 };
  }

  private tooDeepError(run: TaskRun, path: string): Error {
    return new Error(`skill "${run.skill.card.id}" emitted a value nested deeper than ${this.maxJsonDepth} levels (limits.maxJsonDepth) at ${path}`);
  }

  /**
   * Turns a skill's status or artifact event into the wire event; undefined (after logging) for an invalid one. `state`:
   * the task's state before it (what the run committed last, unless earlier events of a batch move it on).
   */
  private toStreamEvent(run: TaskRun, event: Exclude<SkillEvent, { kind: 'reply' }>, state = run.state): StatusOrArtifactEvent | undefined {
    if (event.kind === 'artifact') {
      // Built without spreads of optional parts, which cost more than the rest: this runs for every chunk of every
      // stream. Fields keep the wire order taskId, contextId, metadata, artifact, append, lastChunk.
      const { taskId, contextId } = run;
      const update: TaskArtifactUpdateEvent = event.metadata
        ? { taskId, contextId, metadata: event.metadata, artifact: event.artifact }
        : { taskId, contextId, artifact: event.artifact };
      if (event.append) update.append = true;
      if (event.lastChunk) update.lastChunk = true;
      return { artifactUpdate: update };
    }
    const from = state ?? 'TASK_STATE_SUBMITTED';
    if (!canTransition(from, event.state)) {
      this.logger.warn(`Skill "${run.skill.card.id}" moved task ${run.taskId} from ${from} to ${event.state}; ignored`);
      return undefined;
    }
    const status: TaskStatus = { state: event.state, timestamp: now() };
    if (event.message !== undefined) status.message = agentMessage(event.message, run.contextId, run.taskId);
    const update: TaskStatusUpdateEvent = event.metadata
      ? { taskId: run.taskId, contextId: run.contextId, metadata: event.metadata, status }
      : { taskId: run.taskId, contextId: run.contextId, status };
    return { statusUpdate: update };
  }

  private async onSkillError(run: TaskRun, error: unknown, userMessage: Message): Promise<void> {
    if (run.ended) return;
    if (error instanceof A2aError && run.state === undefined) {
      // A skill may refuse a new message with a protocol error (e.g. bad input): the caller gets that error.
      run.first.reject(error);
      return this.endRun(run);
    }
    if (error instanceof ConcurrentModificationError) return this.onWriteConflict(run, error, userMessage);
    return this.failRun(run, error, userMessage);
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
    const holder = !ended && this.leases ? await this.store.leases?.holder(run.taskId).catch(() => undefined) : this.leases?.replicaId;
    if (run.ended) return;
    if (!ended && holder === this.leases?.replicaId) {
      // FAILED goes on top of what the rival wrote.
      if (stored) run.version = stored.version;
      return this.failRun(run, error, userMessage);
    }
    this.logger.warn(`Task ${run.taskId} was ${ended ? `ended (${stored!.task.status.state})` : 'taken over'} by another writer: its skill stops here`);
    this.stopRun(run);
    this.writer.settled(run.taskId, stored?.version ?? run.version, run.tellReplica);
  }

  /** Ends the task FAILED with a safe message; the real error goes to the log, with its stack, and to `onUnexpectedError`. */
  private async failRun(run: TaskRun, error: unknown, userMessage: Message): Promise<void> {
    this.logger.error(`Skill "${run.skill.card.id}" failed on task ${run.taskId}`, error instanceof Error ? error.stack : String(error));
    this.errors.report(error);
    run.trace?.fail(error);
    return this.recordFailure(run, INTERNAL_FAILURE_TEXT, userMessage);
  }

  /**
   * A record of this run's task that this replica did not write: another replica ended the task (a cancel) while the
   * skill runs here. The skill stops at once; that record has already told every caller.
   */
  private onForeignRecord(run: TaskRun, record: TaskEventRecord): void {
    if (run.ended || !record.final || record.seq <= run.version || !record.event) return;
    this.logger.log(`Task ${run.taskId} was ended by another replica: its skill stops here`);
    this.stopRun(run);
  }

  /**
   * Another replica reaped this replica's lease (it did not renew in time: a long pause, a partition), so it has
   * failed the task, or will: the skill stops here, and its callers hear of the task from that replica's write.
   */
  private onLeaseLost(taskId: string): void {
    const run = this.runs.get(taskId);
    if (!run || run.ended) return;
    this.logger.warn(`Lost the lease of task ${taskId}: its skill stops here`);
    this.stopRun(run);
    // Its callers here may not have heard the write that took the task away (the record sent here was lost): they
    // stop waiting on the run and read the task from the store.
    this.writer.settled(taskId, run.version);
  }

  /**
   * A replica stopped renewing its lease (it died): its task is FAILED with a message saying so, committed under the
   * task's version and published like any event, so every stream of it ends and nobody waits forever.
   */
  private async reapLease(lease: ExpiredLease): Promise<void> {
    for (let attempt = 1; attempt <= MAX_REAP_ATTEMPTS; attempt++) {
      const stored = await this.store.get(lease.taskId, lease.scope);
      if (!stored || isTerminal(stored.task.status.state)) return;
      const skill = this.skills.get(stored.skillId);
      const restart = lease.restart;
      if (restart && skill?.maxAttempts && restart.attempt < skill.maxAttempts && !this.closing) {
        if (await this.rerun(stored, skill, lease.scope, restart, lease.replicaId)) return;
        continue;
      }
      const text = restart
        ? `Execution lost: replica ${lease.replicaId} stopped renewing its lease during run ${restart.attempt} of ${skill?.maxAttempts ?? restart.attempt}, the last one allowed`
        : `Execution lost: replica ${lease.replicaId} stopped renewing its lease while running this task`;
      const event: StatusOrArtifactEvent = {
        statusUpdate: { taskId: stored.task.id, contextId: stored.task.contextId, status: { state: 'TASK_STATE_FAILED', message: agentMessage(text, stored.task.contextId, stored.task.id), timestamp: now() } },
      };
      try {
        // The replica may yet be alive (a long pause): its skill stops, and its streams end, on this record.
        await this.writer.commit(stored.task.id, lease.scope, stored.version, event, { alsoTo: lease.replicaId });
        this.logger.warn(`Task ${lease.taskId} FAILED: replica ${lease.replicaId} stopped renewing its lease`);
        return;
      } catch (error) {
        if (!(error instanceof ConcurrentModificationError)) throw error;
      }
    }
  }

  /**
   * A restartable skill whose replica died runs again here, on the same task: WORKING is recorded with the attempt's
   * number in its metadata, then the skill gets the original message (not added to the history again) and the
   * caller's principal without its credentials. False when a write got there first (the stale run's last one, in
   * flight when its lease was taken, or a cancel): the reaper reads the task again.
   */
  private async rerun(stored: StoredTask, skill: RegisteredSkill, scope: TaskScope, restart: RestartableRun, previousReplica: string): Promise<boolean> {
    const task = stored.task;
    const run = this.newRun(task.id, task.contextId, scope, skill);
    run.attempt = restart.attempt + 1;
    run.tellReplica = previousReplica;
    run.state = task.status.state;
    run.version = stored.version;
    this.logger.warn(`Task ${task.id}: replica ${previousReplica} no longer runs it; running skill "${skill.card.id}" again (run ${run.attempt} of ${skill.maxAttempts})`);
    const working: StatusOrArtifactEvent = {
      statusUpdate: { taskId: task.id, contextId: task.contextId, status: { state: 'TASK_STATE_WORKING', timestamp: now() }, metadata: { [ATTEMPT_METADATA_KEY]: run.attempt } },
    };
    try {
      await this.writer.serialized(task.id, () => this.writer.commit(task.id, scope, run.version, working, { committed: (version) => (run.version = version), alsoTo: run.tellReplica }));
    } catch (error) {
      this.stopRun(run);
      if (!(error instanceof ConcurrentModificationError)) throw error;
      return false;
    }
    run.state = 'TASK_STATE_WORKING';
    applyChange(task, working, this.maxHistory);
    const call: A2aCallContext = {
      principal: { ...restart.principal, authenticated: restart.principal.id !== ANONYMOUS_PRINCIPAL.id },
      tenant: restart.tenant,
      binding: restart.binding,
      version: restart.version,
      extensions: restart.extensions,
    };
    const history = (task.history ?? []).filter((message) => message.messageId !== restart.message.messageId);
    // The input is read again as the first run read it; one that no longer validates asks for input, whatever the mode.
    let input: SkillInputResult | undefined;
    try {
      input = await skill.input?.read(restart.message, { history, task });
    } catch (error) {
      await this.writer.serialized(task.id, () => this.failRun(run, error, restart.message));
      return true;
    }
    this.execute(run, restart.message, call, task, history, input);
    return true;
  }

  /** Shutdown's deadline passed: the skill is stopped, and its task FAILED so that nobody waits for it. */
  private abandonRun(run: TaskRun): Promise<void> {
    run.abort?.abort();
    run.subscription?.unsubscribe();
    return this.writer.serialized(run.taskId, async () => {
      if (await this.handOff(run)) return;
      this.logger.warn(`Task ${run.taskId} was still running at shutdown: it is marked FAILED`);
      return this.recordFailure(run, SHUTDOWN_FAILURE_TEXT, run.userMessage!);
    });
  }

  /**
   * At shutdown, a restartable skill's run with runs left, on a store replicas share: its lease is handed over, and
   * another replica's reaper runs the skill again on the task (its next sweep, within `leaseRenewMs`) rather than the
   * task failing with this replica. Its callers and streams here end with Unavailable: a retried send, or a
   * resubscription, on another replica follows the next run. False when the run is not handed over.
   */
  private async handOff(run: TaskRun): Promise<boolean> {
    const maxAttempts = run.skill.maxAttempts;
    if (!this.leases || !maxAttempts || run.attempt >= maxAttempts || run.state === undefined || run.ended) return false;
    if (!(await this.leases.handOff(run.taskId))) return false;
    this.logger.warn(`Task ${run.taskId} was still running at shutdown: another replica runs skill "${run.skill.card.id}" again (run ${run.attempt + 1} of ${maxAttempts})`);
    // Ended without a write, and without the settled record that would answer its blocking callers with WORKING.
    run.ended = true;
    run.trace?.end(run.state);
    run.cancelWatch?.unsubscribe();
    this.dropRun(run);
    return true;
  }

  /** Writes FAILED with `text` (creating the task if the skill had not), then ends the run. */
  private async recordFailure(run: TaskRun, text: string, userMessage: Message): Promise<void> {
    if (run.ended) return;
    const failed = this.toStreamEvent(run, { kind: 'status', state: 'TASK_STATE_FAILED', message: text });
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
        this.logger.error(`Could not record the failure of task ${run.taskId}`, writeError instanceof Error ? writeError.stack : String(writeError));
      }
    }
    return this.endRun(run);
  }

  private async endRun(run: TaskRun): Promise<void> {
    if (run.ended) return;
    run.ended = true;
    run.trace?.end(run.state);
    run.subscription?.unsubscribe();
    run.cancelWatch?.unsubscribe();
    const released = this.dropRun(run);
    // A follow-up sent as soon as the caller has its answer must not find the lease still held.
    if (released) await released;
    if (run.state === undefined) {
      run.first.reject(new A2aError('InvalidAgentResponse', 'The agent ended without a reply or a task'));
      // No task came of the message: its inline webhook will never get an event.
      if (run.pushConfigId) await this.pushConfigs.dropInline(run.taskId, run.pushConfigId, run.scope).catch(() => undefined);
    }
    // Callers still waiting on the task learn that no more is coming for this message.
    else if (!isTerminal(run.state)) this.writer.settled(run.taskId, run.version, run.tellReplica);
  }

  /** Cancel: the skill's signal fires and its stream is dropped, so nothing it emits afterwards is written. */
  private stopRun(run: TaskRun): void {
    run.ended = true;
    run.canceled = true;
    run.trace?.stopped();
    run.abort?.abort();
    run.subscription?.unsubscribe();
    run.cancelWatch?.unsubscribe();
    void this.dropRun(run);
  }

  /** Forgets the run here (once: both ending paths may see it); settles once its lease is given back. */
  private dropRun(run: TaskRun): Promise<void> | undefined {
    if (this.runs.get(run.taskId) !== run) return undefined;
    this.runs.delete(run.taskId);
    const released = this.leases?.release(run.taskId);
    if (this.maxRunsPerOwner !== Infinity) {
      const left = (this.runsByOwner.get(run.scope.owner) ?? 1) - 1;
      if (left > 0) this.runsByOwner.set(run.scope.owner, left);
      else this.runsByOwner.delete(run.scope.owner);
    }
    return released;
  }
}

/** The task's state once `changes` are applied to a task in `state` (undefined: not created yet, so SUBMITTED). */
function stateAfter(changes: readonly StatusOrArtifactEvent[], state: TaskState | undefined): TaskState {
  for (let i = changes.length - 1; i >= 0; i--) {
    const change = changes[i];
    if ('statusUpdate' in change) return change.statusUpdate.status.state;
  }
  return state ?? 'TASK_STATE_SUBMITTED';
}

/** What the reaper of another replica needs to run a restartable skill again: never the caller's credentials. */
function restartableRun(message: Message, call: A2aCallContext, attempt: number): RestartableRun {
  const { id, subject, scopes, claims } = call.principal;
  return {
    message,
    principal: { id, ...(subject === undefined ? {} : { subject }), ...(scopes ? { scopes } : {}), ...(claims ? { claims } : {}) },
    tenant: call.tenant,
    binding: call.binding,
    version: call.version,
    extensions: call.extensions,
    attempt,
  };
}
