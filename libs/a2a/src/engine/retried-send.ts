import type { Message } from '../protocol/a2a.types.js';

/**
 * A SendMessage whose messageId already went into a task: it is answered with that task, followed while a run of it
 * is still active (here or on another replica), as it stands otherwise (an open task waits for no one). With `reply`:
 * the first send was answered by that message, and so is this one.
 */
export class RetriedSend {
  constructor(
    readonly taskId: string,
    readonly reply?: Message,
  ) {}
}
