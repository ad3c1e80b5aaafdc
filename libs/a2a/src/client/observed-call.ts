import type { AgentCard, AgentInterface, Message, StreamResponse, Task } from '../protocol/a2a.types.js';
import type { ClientCallTrace } from './client-tracing.js';
import type { OutboundAuditCall } from './outbound-audit.trail.js';
import { asSendMessageResult, asTask, taskIdOf } from './response.shapes.js';
import type { ClientMethod } from './transports/client.transport.js';

/**
 * What tracing and the outbound audit trail follow of one call (either may be absent). Every method swallows what
 * goes wrong in them: observing a call never fails it.
 */
export class ObservedCall {
  /** A call nobody observes. */
  static readonly none = new ObservedCall('GetTask', undefined, undefined);

  constructor(
    private readonly method: ClientMethod,
    readonly trace: ClientCallTrace | undefined,
    private readonly audit: OutboundAuditCall | undefined,
  ) {}

  /** Adds the call's trace context to an attempt's headers (gRPC metadata). */
  inject(headers: Record<string, string>): void {
    quietly(() => this.trace?.inject(headers));
  }

  /** An attempt goes to `entry` of `card`, with `tenant`. */
  attempt(card: AgentCard, entry: AgentInterface, tenant: string | undefined): void {
    quietly(() => {
      this.trace?.attempt(card, entry);
      this.audit?.attempt(tenant);
    });
  }

  /** The request names its task (a follow-up, GetTask…): known before the answer. */
  requested(taskId: string | undefined, contextId: string | undefined): void {
    quietly(() => this.trace?.task(taskId, contextId));
  }

  /** A unary call's answer, as received. */
  answered(value: unknown): void {
    quietly(() => {
      if (this.trace) {
        const result = this.method === 'SendMessage' ? asSendMessageResult(value) : asTask(value);
        if (result && 'status' in result) this.trace.task((result as Task).id, (result as Task).contextId);
        else if (result) this.trace.task((result as Message).taskId, (result as Message).contextId);
      }
      this.audit?.answered(value);
    });
  }

  /** One event of a stream. */
  event(response: StreamResponse): void {
    quietly(() => {
      this.trace?.task(taskIdOf(response), contextIdOf(response));
      this.audit?.event(response);
    });
  }

  /** Runs `work` in the call's trace context (calls made as part of this one become its children). */
  within<T>(work: () => T): T {
    return this.trace ? this.trace.within(work) : work();
  }

  /** The call ended; `error` when it failed. */
  end(error?: unknown): void {
    quietly(() => this.trace?.end(error));
  }
}

function contextIdOf(response: StreamResponse): string | undefined {
  if ('task' in response && response.task) return response.task.contextId;
  if ('statusUpdate' in response && response.statusUpdate) return response.statusUpdate.contextId;
  if ('artifactUpdate' in response && response.artifactUpdate) return response.artifactUpdate.contextId;
  if ('message' in response && response.message) return response.message.contextId;
  return undefined;
}

function quietly(work: () => void): void {
  try {
    work();
  } catch {
    // Tracing and auditing are best effort; the audit trail logs its own failures.
  }
}
