import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Observable, Subject, type Subscriber } from 'rxjs';
import type { StreamResponse } from '../protocol/a2a.types.js';
import type { PushedEvent } from './pushed-event.reader.js';

/**
 * Where accepted push notifications go: to every subscriber of all events, and to the subscribers of the event's
 * task. Watchers are kept per task id only while someone subscribes, so a task nobody watches costs nothing; a
 * terminal event completes (and forgets) its task's watchers. Events are delivered synchronously, in the order they
 * are published.
 */
@Injectable()
export class PushEventHub implements OnModuleDestroy {
  private readonly all = new Subject<StreamResponse>();
  private readonly watchers = new Map<string, Set<Subscriber<StreamResponse>>>();
  private stopped = false;

  readonly events$: Observable<StreamResponse> = this.all.asObservable();

  forTask(taskId: string): Observable<StreamResponse> {
    return new Observable<StreamResponse>((subscriber) => {
      if (this.stopped) return subscriber.complete();
      let own = this.watchers.get(taskId);
      if (!own) this.watchers.set(taskId, (own = new Set()));
      own.add(subscriber);
      return () => {
        own.delete(subscriber);
        // Only the set this subscriber joined: a terminal event may have replaced it since.
        if (own.size === 0 && this.watchers.get(taskId) === own) this.watchers.delete(taskId);
      };
    });
  }

  publish({ event, taskId, terminal }: PushedEvent): void {
    const watchers = taskId === undefined ? undefined : this.watchers.get(taskId);
    if (watchers) {
      if (terminal) this.watchers.delete(taskId!);
      // A copy: a subscriber may unsubscribe, or subscribe another, while it is called.
      for (const subscriber of [...watchers]) {
        subscriber.next(event);
        if (terminal) subscriber.complete();
      }
    }
    this.all.next(event);
  }

  /** The number of tasks someone watches (for tests: a task nobody watches holds nothing). */
  get watchedTasks(): number {
    return this.watchers.size;
  }

  onModuleDestroy(): void {
    this.stopped = true;
    for (const watchers of this.watchers.values()) for (const subscriber of [...watchers]) subscriber.complete();
    this.watchers.clear();
    this.all.complete();
  }
}
