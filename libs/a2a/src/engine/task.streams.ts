import { Inject, Injectable, Logger } from '@nestjs/common';
import { Observable, Subject, defer, filter, lastValueFrom, map, takeWhile, type MonoTypeOperatorFunction } from 'rxjs';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import { A2aMessages } from '../a2a.messages.js';
import { A2A_EVENT_BUS, type EventBus, type StatusOrArtifactEvent } from '../bus/event-bus.js';
import { scopeOf, type A2aCallContext, type TaskScope } from '../context/call-context.js';
import { A2aError } from '../errors/a2a.error.js';
import type { StreamResponse, SubscribeToTaskRequest, Task } from '../protocol/a2a.types.js';
import { A2A_TASK_STORE, type StoredTask, type TaskStore } from '../store/task.store.js';
import { endsSendStream, resumeCursorOf, streamItemsOf } from './stream-frames.js';
import { withSeq } from './stream-seq.js';
import { headThenTail, type TailOptions, type TaskStreamItem } from './task-stream.js';
import { isTerminal, settlesSend } from '../task/task-states.js';

/** `limits.maxStreamsPerPrincipal` when unset. */
export const DEFAULT_MAX_STREAMS_PER_PRINCIPAL = 100;

/** Whether a run of the task is under way, here or on another replica. */
export type RunActivity = (taskId: string) => Promise<boolean>;

/**
 * The streams of tasks, as readers see them: built from the store (the snapshot, or what a resuming reader missed)
 * and the bus (everything committed after), the same on every replica whichever one runs the skill; all ended with an
 * Unavailable error when the engine shuts down.
 */
@Injectable()
export class TaskStreams {
  private readonly logger = new Logger('A2aEngine');
  private readonly shutdown$ = new Subject<never>();
  /** Streams open per principal (tenant + owner), while `limits.maxStreamsPerPrincipal` caps them. */
  private readonly openByPrincipal = new Map<string, number>();
  private readonly maxPerPrincipal: number;

  constructor(
    @Inject(A2A_TASK_STORE) private readonly store: TaskStore,
    @Inject(A2A_EVENT_BUS) private readonly bus: EventBus,
    @Inject(A2A_MODULE_OPTIONS) options: A2aModuleOptions,
  ) {
    // Checked at bootstrap (a2a-options.schema.ts): a whole number, 1 or more, or Infinity.
    this.maxPerPrincipal = options.limits?.maxStreamsPerPrincipal ?? DEFAULT_MAX_STREAMS_PER_PRINCIPAL;
  }

  /**
   * Option `limits.maxStreamsPerPrincipal`: the stream counts against its caller's open streams from subscription to
   * its end, whichever end (completion, error, the client going away); one beyond the cap fails with TooManyRequests
   * before anything of it starts. Every stream the engine serves, on every binding, goes through here.
   */
  perPrincipal<T>(call: A2aCallContext): MonoTypeOperatorFunction<T> {
    if (this.maxPerPrincipal === Infinity) return (source) => source;
    return (source) =>
      new Observable<T>((subscriber) => {
        const { tenant, owner } = scopeOf(call);
        const key = `${tenant}\u0000${owner}`;
        const open = this.openByPrincipal.get(key) ?? 0;
        if (open >= this.maxPerPrincipal) {
          subscriber.error(new A2aError('TooManyRequests', A2aMessages.tooManyStreams(this.maxPerPrincipal)));
          return;
        }
        this.openByPrincipal.set(key, open + 1);
        const events = source.subscribe(subscriber);
        return () => {
          events.unsubscribe();
          const left = this.openByPrincipal.get(key)! - 1;
          if (left === 0) this.openByPrincipal.delete(key);
          else this.openByPrincipal.set(key, left);
        };
      });
  }

  /**
   * SubscribeToTask: the task, then its events until a terminal state (spec §3.1.2, §3.1.6). With `Last-Event-ID` (the
   * SSE `id:` of the last frame read), the events committed after it instead, so a reconnecting client loses and
   * repeats nothing; if the store no longer has them all, the task first as for a new subscription.
   */
  subscribe(request: SubscribeToTaskRequest, call: A2aCallContext): Observable<StreamResponse> {
    const resumeAfter = resumeCursorOf(call);
    return defer(() =>
      headThenTail(
        this.bus.watch(request.id),
        async () => {
          const scope = scopeOf(call);
          const stored = await this.store.get(request.id, scope);
          if (!stored) throw A2aError.taskNotFound(request.id);
          const missed = await this.missedSince(request.id, scope, resumeAfter);
          if (missed)
            return {
              items: missed.items,
              version: missed.version,
              ended: missed.caughtUp && isTerminal(stored.task.status.state),
            };
          if (isTerminal(stored.task.status.state)) {
            // A reader resuming after the end gets the final task; a new one learns it is too late.
            if (resumeAfter !== undefined)
              return {
                items: [{ response: { task: stored.task }, final: true, seq: stored.version }],
                version: stored.version,
              };
            throw new A2aError('UnsupportedOperation', `Task ${request.id} is already ${stored.task.status.state}`, {
              taskId: request.id,
            });
          }
          return {
            items: [{ response: { task: stored.task }, final: false, seq: stored.version }],
            version: stored.version,
          };
        },
        this.tailOptions(request.id, scopeOf(call)),
      ),
    ).pipe(
      filter((item): item is Extract<TaskStreamItem, { response: unknown }> => 'response' in item),
      takeWhile((item) => !item.final, true),
      map((item) => withSeq(item.response, item.seq)),
      this.endsAtShutdown(),
    );
  }

  /**
   * What a reader resuming after version `after` (its `Last-Event-ID`) missed of the task, as stream items, and the
   * version they bring it to; `caughtUp` when it missed nothing. Undefined when it is not resuming, or when the store
   * no longer holds all it missed (it then gets the task).
   */
  private async missedSince(taskId: string, scope: TaskScope, after: number | undefined) {
    if (after === undefined) return undefined;
    const changes = await this.store.readChanges?.(taskId, scope, after);
    if (!Array.isArray(changes)) return undefined;
    return {
      items: streamItemsOf(changes),
      version: Math.max(after, changes.at(-1)?.version ?? after),
      caughtUp: changes.length === 0,
    };
  }

  /**
   * A retried send's stream: the task, then, while a run of it is active, its events until it is terminal or
   * interrupted or the run settles. Whether a run is active is asked once the tail is watched, so its end cannot slip
   * between the question and the watch. With `Last-Event-ID` (a send stream that broke, sent again), the events after
   * it instead of the task, as SubscribeToTask resumes: nothing at all for a reader that saw the stream's end.
   */
  follow(taskId: string, call: A2aCallContext, active: RunActivity): Observable<StreamResponse> {
    const scope = scopeOf(call);
    const resumeAfter = resumeCursorOf(call);
    const headOf = async (stored: StoredTask) => {
      const missed = await this.missedSince(taskId, scope, resumeAfter);
      return missed
        ? { items: missed.items, version: missed.version }
        : { items: [frameOf(stored)], version: stored.version };
    };
    return headThenTail(
      this.bus.watch(taskId),
      async () => {
        const stored = await this.read(taskId, scope);
        if (endsSendStream(frameOf(stored))) return { ...(await headOf(stored)), ended: true };
        if (await active(taskId)) return headOf(stored);
        // Without an active run nothing more will come (an open task waits for its next message): the task alone (or
        // what the reader missed of it), as the run that ended after the read above left it.
        return { ...(await headOf(await this.read(taskId, scope))), ended: true };
      },
      this.tailOptions(taskId, scope),
    ).pipe(
      takeWhile((item) => !('settled' in item) && !endsSendStream(item), true),
      filter((item): item is Extract<TaskStreamItem, { response: unknown }> => 'response' in item),
      map((item) => withSeq(item.response, item.seq)),
    );
  }

  /**
   * A blocking SendMessage's answer: the task as the store has it once the run for its message has settled (a
   * terminal or interrupted state committed after version `after`, or the run's end). The one signal is the
   * committed record, from this replica or another; the answer is always read back from the store. `runsHere`: the
   * run is on this replica, so what others write of the task is sent here and this replica alone is watched.
   */
  async settled(taskId: string, scope: TaskScope, after: number, active: RunActivity, runsHere = false): Promise<Task> {
    // Most runs have settled by the time their caller asks (a quick skill): one read, and no watch on the bus (on
    // Redis, a subscription and its round trip).
    const now = await this.read(taskId, scope);
    if (now.version > after && settlesSend(now.task.status.state)) return now.task;
    let head: StoredTask | undefined;
    const items$ = headThenTail(
      this.bus.watch(taskId, { replicaOnly: runsHere }),
      async () => {
        head = await this.read(taskId, scope);
        if (head.version > after && settlesSend(head.task.status.state))
          return { items: [], version: head.version, ended: true };
        if (await active(taskId)) return { items: [], version: head.version };
        // The run ended after the read above: all it wrote is committed now, and the answer.
        head = await this.read(taskId, scope);
        return { items: [], version: head.version, ended: true };
      },
      this.tailOptions(taskId, scope),
    ).pipe(
      takeWhile((item) => !('settled' in item) && !item.final && !settlesSendItem(item), true),
      this.endsAtShutdown(),
    );
    const last = await lastValueFrom(items$, { defaultValue: undefined });
    return last === undefined ? head!.task : (await this.read(taskId, scope)).task;
  }

  private async read(taskId: string, scope: TaskScope): Promise<StoredTask> {
    const stored = await this.store.get(taskId, scope);
    if (!stored) throw A2aError.taskNotFound(taskId);
    return stored;
  }

  /**
   * How a stream of `taskId` keeps up on a bus shared by replicas: the head waits for the bus's subscription, and
   * after a reconnect the stream reads what it missed from the store. Nothing on a bus of one process.
   */
  tailOptions(taskId: string, scope: TaskScope): TailOptions {
    const { bus, store } = this;
    if (!bus.spansReplicas) return {};
    return {
      ready: bus.ready && (() => bus.ready!(taskId)),
      resync$: bus.resync$,
      refill: async (afterVersion) => {
        const missed = await store.readChanges?.(taskId, scope, afterVersion);
        if (!Array.isArray(missed)) {
          this.logger.warn(
            `Task ${taskId}: events missed while the event bus was away cannot be read back from the store`,
          );
          return [];
        }
        return streamItemsOf(missed).map((item) => ({
          taskId,
          seq: item.seq,
          event: item.response as StatusOrArtifactEvent,
          final: item.final,
          settled: false,
        }));
      },
    };
  }

  /** A stream still open when shutdown has drained the runs ends with an Unavailable error. */
  endsAtShutdown<T>(): MonoTypeOperatorFunction<T> {
    return (source) =>
      new Observable<T>((subscriber) => {
        const shutdown = this.shutdown$.subscribe({ error: (error: unknown) => subscriber.error(error) });
        const events = source.subscribe(subscriber);
        return () => {
          events.unsubscribe();
          shutdown.unsubscribe();
        };
      });
  }

  /** Ends every stream still open, and any opened from now on, with `error`. */
  close(error: A2aError): void {
    this.shutdown$.error(error);
  }
}

function frameOf(stored: StoredTask): Extract<TaskStreamItem, { response: unknown }> {
  return { response: { task: stored.task }, final: isTerminal(stored.task.status.state), seq: stored.version };
}

function settlesSendItem(item: TaskStreamItem): boolean {
  return 'response' in item && 'statusUpdate' in item.response && settlesSend(item.response.statusUpdate.status.state);
}
