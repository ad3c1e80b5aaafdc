import type { TaskScope } from '../context/call-context.js';
import type { Message } from '../protocol/a2a.types.js';
import { copyData } from './data-copy.js';

/** The message ids an InMemoryTaskStore has seen, per scope, with the direct replies to them; at most `max`, oldest dropped first. */
export class InMemoryMessageIds {
  /** Message id → task id, per scope, oldest first. */
  private readonly claims = new Map<string, string>();
  /** The direct replies of claimed message ids (`recordReply`), under the same keys; gone when the claim is. */
  private readonly replies = new Map<string, Message>();
  /** The configuration digests kept with the claims, under the same keys; gone when the claim is. */
  private readonly configurations = new Map<string, string>();

  constructor(private readonly max: number) {}

  /** The task the message id names: `taskId` when it is new. */
  claim(scope: TaskScope, messageId: string, taskId: string, configuration?: string): string {
    const key = messageIdKey(scope, messageId);
    const owner = this.claims.get(key);
    if (owner !== undefined) return owner;
    this.claims.set(key, taskId);
    if (configuration !== undefined) this.configurations.set(key, configuration);
    if (this.claims.size > this.max) {
      const oldest = this.claims.keys().next().value!;
      this.claims.delete(oldest);
      this.replies.delete(oldest);
      this.configurations.delete(oldest);
    }
    return taskId;
  }

  /** The configuration digest kept with the claim of `messageId`. */
  configurationOf(scope: TaskScope, messageId: string): string | undefined {
    return this.configurations.get(messageIdKey(scope, messageId));
  }

  /** Keeps the reply when the message id still names `taskId`. */
  recordReply(scope: TaskScope, messageId: string, taskId: string, reply: Message): void {
    const key = messageIdKey(scope, messageId);
    if (this.claims.get(key) === taskId) this.replies.set(key, copyData(reply));
  }

  replyTo(scope: TaskScope, messageId: string): Message | undefined {
    const reply = this.replies.get(messageIdKey(scope, messageId));
    return reply && copyData(reply);
  }
}

/** The key of a messageId's claim in `scope`. */
function messageIdKey(scope: TaskScope, messageId: string): string {
  return `${scope.tenant}\u0000${scope.owner}\u0000${messageId}`;
}
