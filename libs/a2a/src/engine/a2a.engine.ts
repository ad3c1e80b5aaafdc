import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Observable, catchError, defer, filter, map, of, takeWhile } from 'rxjs';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import { A2A_EVENT_BUS, type EventBus, type StatusOrArtifactEvent } from '../bus/event-bus.js';
import { ExtendedAgentCardService } from '../card/extended-agent-card.service.js';
import { scopeOf, type A2aCallContext } from '../context/call-context.js';
import { A2aError } from '../errors/a2a.error.js';
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '../protocol/a2a.types.js';
import { A2aPushConfigs } from '../push/push-configs.service.js';
import { A2aSecurityPolicy } from '../security/a2a-security.policy.js';
import type { ValidationLimits } from '../protocol/request.validator.js';
import type { SkillGate } from '../skills/skill-guards.js';
import {
  A2A_TASK_STORE,
  ConcurrentModificationError,
  InvalidPageTokenError,
  type TaskStore,
} from '../store/task.store.js';
import { DEFAULT_MAX_HISTORY } from '../a2a.constants.js';
import { maxJsonDepthOf } from './engine-options.js';
import { now } from '../task/now.js';
import { RetriedSend } from './retried-send.js';
import { SHUTTING_DOWN, SkillExecutor } from './skill.executor.js';
import { endsSendStream } from './stream-frames.js';
import { withSeq } from './stream-seq.js';
import { applyChange } from '../task/task-reducer.js';
import type { TaskRun } from './task-run.js';
import { isTerminal, settlesSend } from '../task/task-states.js';
import { headThenTail, type StreamHead, type TaskStreamItem } from './task-stream.js';
import { taskView } from '../task/task-views.js';
import { TaskStreams } from './task.streams.js';
import { TaskWriter } from './task.writer.js';

const DEFAULT_PAGE_SIZE = 50;
const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
/** A cancel racing the skill's own writes on another replica retries this often before it gives up. */
const MAX_CANCEL_ATTEMPTS = 10;

/** A stream answered by a message: that message is its one and last frame. */
const directReply = (message: Message): StreamHead => ({
  items: [{ response: { message }, final: true, seq: 0 }],
  version: 0,
  ended: true,
});

/**
 * The one binding-agnostic implementation of every A2A operation. Bindings validate and decode requests, build the
 * call context, and map results and {@link A2aError}s to their wire format. The engine answers from the store; the
 * {@link SkillExecutor} runs skills, the {@link TaskWriter} commits what they emit, and {@link TaskStreams} assembles
 * what readers see.
 */
@Injectable()
export class A2aEngine implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly maxHistory: number;
  /** The request bounds every binding's validators apply; skills' events are held to the same depth. */
  readonly validationLimits: ValidationLimits;
  private readonly isActive = (taskId: string) => this.executor.isActive(taskId);

  constructor(
    @Inject(A2A_TASK_STORE) private readonly store: TaskStore,
    @Inject(A2A_EVENT_BUS) private readonly bus: EventBus,
    @Inject(A2A_MODULE_OPTIONS) private readonly options: A2aModuleOptions,
    private readonly executor: SkillExecutor,
    private readonly writer: TaskWriter,
    private readonly streams: TaskStreams,
    private readonly extendedCards: ExtendedAgentCardService,
    private readonly pushConfigs: A2aPushConfigs,
    private readonly security: A2aSecurityPolicy,
  ) {
    this.maxHistory = options.limits?.maxHistoryLength ?? DEFAULT_MAX_HISTORY;
    this.validationLimits = { maxJsonDepth: maxJsonDepthOf(options) };
  }

  /**
   * SendMessage: blocks until the task is terminal or interrupted, unless `returnImmediately` (spec §3.2.2). `gate` is
   * checked once the message is routed (or its task's skill known), before the skill runs (the skill's own guards).
   */
  async sendMessage(request: SendMessageRequest, call: A2aCallContext, gate?: SkillGate): Promise<SendMessageResponse> {
    const historyLength = request.configuration?.historyLength;
    const blocking = !request.configuration?.returnImmediately;
    let run: TaskRun;
    try {
      run = await this.executor.start(request, call, request.message.taskId ?? randomUUID(), gate, blocking);
    } catch (error) {
      if (!(error instanceof RetriedSend)) throw error;
      if (error.reply) return { message: error.reply };
      return { task: taskView(await this.answerRetry(error.taskId, request, call), historyLength) };
    }
    const first = await run.first.promise;
    if ('message' in first) return { message: first.message };
    if (!blocking) return { task: taskView(first.task, historyLength) };
    // A follow-up's first answer still shows the state that asked for it (e.g. INPUT_REQUIRED): only what comes after counts.
    const after = request.message.taskId === undefined ? 0 : first.version;
    // A quick skill's task was created settled (its run folded into one write): that write is the answer.
    if (after === 0 && settlesSend(first.task.status.state)) return { task: taskView(first.task, historyLength) };
    return {
      task: taskView(await this.streams.settled(run.taskId, run.scope, after, this.isActive, true), historyLength),
    };
  }

  /**
   * SendStreamingMessage: the task, then its events, closing at a terminal or interrupted state or when the skill's
   * run ends; or exactly one message. Errors found before the first event are the Observable's first notification.
   */
  sendStreamingMessage(
    request: SendMessageRequest,
    call: A2aCallContext,
    gate?: SkillGate,
  ): Observable<StreamResponse> {
    return defer(() => {
      // The task id exists before the run starts, so the stream can watch it before the first event is committed.
      const taskId = request.message.taskId ?? randomUUID();
      // The run is here: what others write of its task (a cancel) is sent here, so this replica alone is watched.
      const items$ = headThenTail(
        this.bus.watch(taskId, { replicaOnly: true }),
        async () => {
          const run = await this.executor.start(request, call, taskId, gate);
          const first = await run.first.promise;
          // A direct reply is the stream's one and last frame.
          if ('message' in first) return directReply(first.message);
          // A retried send joined the first one's run: its stream must watch that task instead.
          if (run.taskId !== taskId) throw new RetriedSend(run.taskId);
          return {
            items: [{ response: { task: first.task }, final: false, seq: first.version }],
            version: first.version,
          };
        },
        this.streams.tailOptions(taskId, scopeOf(call)),
      );
      // A follow-up's snapshot still shows the state that asked for it (e.g. INPUT_REQUIRED): only what the skill does
      // next may end its stream.
      const followUp = request.message.taskId !== undefined;
      return items$.pipe(
        takeWhile((item, index) => !('settled' in item) && ((followUp && index === 0) || !endsSendStream(item)), true),
        filter((item): item is Extract<TaskStreamItem, { response: unknown }> => 'response' in item),
        map((item) => ('message' in item.response ? item.response : withSeq(item.response, item.seq))),
      );
    }).pipe(
      catchError((error: unknown) => {
        if (!(error instanceof RetriedSend)) throw error;
        if (error.reply) return of<StreamResponse>({ message: error.reply });
        return this.streams.follow(error.taskId, call, this.isActive);
      }),
      this.streams.endsAtShutdown(),
      this.streams.perPrincipal(call),
    );
  }

  /**
   * The answer to a retried blocking SendMessage whose first run is not on this engine: the task once that run has
   * settled (at once with `returnImmediately`, or when no run of it is active).
   */
  private answerRetry(taskId: string, request: SendMessageRequest, call: A2aCallContext): Promise<Task> {
    const active = request.configuration?.returnImmediately ? async () => false : this.isActive;
    return this.streams.settled(taskId, scopeOf(call), 0, active);
  }

  /**
   * SubscribeToTask: the task, then its events until a terminal state (spec §3.1.2, §3.1.6); with `Last-Event-ID`, only
   * what the reader missed (see TaskStreams).
   */
  subscribeToTask(request: SubscribeToTaskRequest, call: A2aCallContext): Observable<StreamResponse> {
    return this.streams.subscribe(request, call).pipe(this.streams.perPrincipal(call));
  }

  async getTask(request: GetTaskRequest, call: A2aCallContext): Promise<Task> {
    const stored = await this.store.get(request.id, scopeOf(call));
    if (!stored) throw A2aError.taskNotFound(request.id);
    return taskView(stored.task, request.historyLength);
  }

  /** ListTasks: the caller's tasks; for an anonymous caller only with option `security.anonymousCallers: 'shared'`. */
  async listTasks(request: ListTasksRequest, call: A2aCallContext): Promise<ListTasksResponse> {
    this.security.requireOwnerFor('ListTasks', call.principal);
    const pageSize = request.pageSize ?? DEFAULT_PAGE_SIZE;
    try {
      const page = await this.store.list(
        {
          contextId: request.contextId,
          status: request.status,
          statusTimestampAfter: request.statusTimestampAfter,
          pageSize,
          pageToken: request.pageToken || undefined,
        },
        scopeOf(call),
      );
      return {
        tasks: page.tasks.map((t) => taskView(t, request.historyLength, request.includeArtifacts ? 'always' : 'omit')),
        nextPageToken: page.nextPageToken,
        pageSize,
        totalSize: page.totalSize,
      };
    } catch (error) {
      if (error instanceof InvalidPageTokenError)
        throw A2aError.invalidParams([{ field: 'pageToken', description: error.message }]);
      throw error;
    }
  }

  /**
   * CancelTask, on whichever replica receives it: CANCELED is written under the task's version (retried when another
   * writer got there first, as the skill's replica may), and the replica running the skill hears it on the bus.
   * Repeating it on a CANCELED task is idempotent (spec §3.3.1).
   */
  async cancelTask(request: CancelTaskRequest, call: A2aCallContext): Promise<Task> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.cancelOnce(request, call);
      } catch (error) {
        if (!(error instanceof ConcurrentModificationError) || attempt >= MAX_CANCEL_ATTEMPTS) throw error;
      }
    }
  }

  private cancelOnce(request: CancelTaskRequest, call: A2aCallContext): Promise<Task> {
    const scope = scopeOf(call);
    return this.writer.serialized(request.id, async () => {
      // Read with the task: the record goes to the replica running its skill, which stops it there (a bus of one
      // process reaches no other replica: that one stops at its next lease renewal).
      const runner = this.bus.spansReplicas ? this.executor.holderElsewhere(request.id) : undefined;
      const [stored, runsOn] = await Promise.all([this.store.get(request.id, scope), runner]);
      if (!stored) throw A2aError.taskNotFound(request.id);
      const state = stored.task.status.state;
      if (state === 'TASK_STATE_CANCELED') return stored.task;
      if (isTerminal(state)) {
        throw new A2aError('TaskNotCancelable', `Task ${request.id} is ${state} and cannot be canceled`, {
          taskId: request.id,
        });
      }
      this.executor.stop(request.id);
      const task = stored.task;
      const event: StatusOrArtifactEvent = {
        statusUpdate: {
          taskId: task.id,
          contextId: task.contextId,
          status: { state: 'TASK_STATE_CANCELED', timestamp: now() },
          ...(request.metadata ? { metadata: request.metadata } : {}),
        },
      };
      await this.writer.commit(task.id, scope, stored.version, event, { alsoTo: runsOn });
      // The task read above, with the change just committed: what the store now holds.
      applyChange(task, event, this.maxHistory);
      return task;
    });
  }

  /** CreateTaskPushNotificationConfig (spec §3.1.7); PushNotificationNotSupported without option `push` (spec §3.3.4), as the other three. */
  createTaskPushNotificationConfig(
    request: TaskPushNotificationConfig,
    call: A2aCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.pushConfigs.create(request, call);
  }

  getTaskPushNotificationConfig(
    request: GetTaskPushNotificationConfigRequest,
    call: A2aCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.pushConfigs.get(request, call);
  }

  listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    call: A2aCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.pushConfigs.list(request, call);
  }

  deleteTaskPushNotificationConfig(
    request: DeleteTaskPushNotificationConfigRequest,
    call: A2aCallContext,
  ): Promise<Record<string, never>> {
    return this.pushConfigs.delete(request, call);
  }

  /** GetExtendedAgentCard: for an authenticated caller, when option `security.extendedCard` enables it (spec §3.3.4, §13.3). */
  getExtendedAgentCard(call: A2aCallContext): Promise<AgentCard> {
    return this.extendedCards.cardFor(call.principal);
  }

  onApplicationBootstrap(): void {
    this.executor.startLeases();
  }

  /**
   * Graceful shutdown (before the HTTP server closes): no new message is accepted (Unavailable, 503); running skills
   * get `shutdownGraceMs` to finish, then are stopped and their tasks FAILED, which ends their streams and answers
   * their blocking callers (a restartable skill's run with runs left is handed to another replica instead); every
   * other open stream and waiting caller then ends with Unavailable, so its client knows to go elsewhere.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.executor.drain(Date.now() + (this.options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS));
    this.streams.close(new A2aError('Unavailable', SHUTTING_DOWN));
  }

  onApplicationShutdown(): void {
    this.executor.stopAll();
  }
}
