import { Observable, Subject } from 'rxjs';
import type { EventBus, TaskEventRecord } from './event-bus.js';

/** The default bus: one Subject per watched task, dropped as soon as its last watcher leaves. */
export class InProcessEventBus implements EventBus {
  private readonly subjects = new Map<string, Subject<TaskEventRecord>>();

  publish(record: TaskEventRecord): void {
    this.subjects.get(record.taskId)?.next(record);
  }

  watch(taskId: string): Observable<TaskEventRecord> {
    return new Observable<TaskEventRecord>((subscriber) => {
      const subject = this.subjects.get(taskId) ?? new Subject<TaskEventRecord>();
      this.subjects.set(taskId, subject);
      const subscription = subject.subscribe(subscriber);
      return () => {
        subscription.unsubscribe();
        if (!subject.observed) this.subjects.delete(taskId);
      };
    });
  }

  /** Tasks with at least one watcher; for leak tests. */
  get watchedTaskCount(): number {
    return this.subjects.size;
  }
}
