import { Injectable } from '@nestjs/common';
import type { Observable } from 'rxjs';
import type { StreamResponse } from '../protocol/a2a.types.js';
import { PushEventHub } from './push-event.hub.js';

/**
 * The task events agents push to this app's webhook (`A2aPushReceiverModule`), once verified, checked and
 * de-duplicated. Both streams are hot: they carry what arrives while subscribed, nothing from before. To follow a
 * task without missing what happened before subscribing, subscribe to `forTask` first, then read the task once
 * (GetTask) to catch up.
 *
 * ```ts
 * const task = await client.sendMessage({ message, configuration: { taskPushNotificationConfig: { url, token } } });
 * events.forTask(task.id).subscribe((event) => console.log(event));
 * ```
 *
 * @hideconstructor
 */
@Injectable()
export class A2aPushEvents {
  constructor(private readonly hub: PushEventHub) {}

  /**
   * Every accepted event, of every task, in the order received. Completes when the app shuts down. A verified sender
   * may still name any task: act only on the tasks this app created (§13.2), e.g. through `forTask`.
   */
  get events$(): Observable<StreamResponse> {
    return this.hub.events$;
  }

  /**
   * The events of one task (`task.id`, `statusUpdate.taskId`, `artifactUpdate.taskId` or `message.taskId`), in the
   * order received. Completes after the event that puts the task in a terminal state (COMPLETED, FAILED, CANCELED,
   * REJECTED), or when the app shuts down. The receiver keeps nothing for a task while nobody subscribes to it.
   */
  forTask(taskId: string): Observable<StreamResponse> {
    return this.hub.forTask(taskId);
  }
}
