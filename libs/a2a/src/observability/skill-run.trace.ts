import type { Context, Span } from '@opentelemetry/api';
import type { TaskState } from '../protocol/a2a.types.js';
import { A2aAttributes } from './observability.names.js';
import { failSpan } from './operation.trace.js';

/**
 * The span of one skill run (`a2a.skill <skillId>`), a child of the operation that started it. Its context is the
 * active one while the skill runs, so the skill's own spans, and the A2A calls it makes (`injectTraceContext`), are
 * its children. Ends once, when the run ends, fails or is stopped.
 */
export class SkillRunTrace {
  private ended = false;

  constructor(
    readonly context: Context,
    private readonly span: Span,
  ) {}

  /** The skill failed (it threw, or emitted something the engine refused): the task is FAILED. */
  fail(error: unknown): void {
    if (!this.ended) failSpan(this.span, error);
  }

  /** The run was stopped before its end (CancelTask, a lost lease, shutdown): nothing it emits afterwards is written. */
  stopped(): void {
    if (this.ended) return;
    this.span.setAttribute(A2aAttributes.stopped, true);
    this.end(undefined);
  }

  /** The run ended; `state` is the task's state as the run left it, if the task exists. */
  end(state: TaskState | undefined): void {
    if (this.ended) return;
    this.ended = true;
    if (state !== undefined) this.span.setAttribute(A2aAttributes.state, state);
    this.span.end();
  }
}
