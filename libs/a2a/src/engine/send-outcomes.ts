import { Observable } from 'rxjs';
import type { Message, StreamResponse } from '../protocol/a2a.types.js';

/** Thrown inside a stream's snapshot step when the skill answered with a Message instead of a task. */
export class DirectReply {
  constructor(readonly message: Message) {}
}

/** A SendMessage whose messageId already started a task this engine is not running: it is answered with that task. */
export class RetriedSend {
  constructor(readonly taskId: string) {}
}

/** A stream whose snapshot step found a direct reply answers with that Message alone. */
export function replaceDirectReply() {
  return (source: Observable<StreamResponse>) =>
    new Observable<StreamResponse>((subscriber) =>
      source.subscribe({
        next: (value) => subscriber.next(value),
        error: (error: unknown) => {
          if (!(error instanceof DirectReply)) return subscriber.error(error);
          subscriber.next({ message: error.message });
          subscriber.complete();
        },
        complete: () => subscriber.complete(),
      }),
    );
}
