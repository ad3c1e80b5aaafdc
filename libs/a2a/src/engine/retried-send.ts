/** A SendMessage whose messageId already started a task this engine is not running: it is answered with that task. */
export class RetriedSend {
  constructor(readonly taskId: string) {}
}
