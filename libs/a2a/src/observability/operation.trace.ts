import type { Context, Span } from '@opentelemetry/api';
import { a2aErrorKindOf } from '../errors/to-a2a-error.js';
import { A2aAttributes } from './observability.names.js';

/** SpanStatusCode.ERROR of `@opentelemetry/api`, which the core may not import at load time. */
export const SPAN_STATUS_ERROR = 2;

/**
 * One call of an operation as tracing and metrics see it, from the moment the binding hands it to the Nest pipeline
 * (guards included) to its answer, or for a stream to its end: its SERVER span, if a tracer records, and its place
 * in the open-streams count, if it is a stream and a meter records. Ends once, whichever path ends it.
 */
export class OperationTrace {
  private ended = false;

  constructor(
    private readonly span: Span | undefined,
    private readonly closeStream: (() => void) | undefined,
    /** The context the operation runs in: its span's, so the skill's span and the app's own become its children. */
    public context: Context,
  ) {}

  /** What the engine learned once it routed the message: a new task's ids, the skill. */
  annotate(taskId: string, contextId: string, skillId: string): void {
    this.span?.setAttributes({
      [A2aAttributes.taskId]: taskId,
      [A2aAttributes.contextId]: contextId,
      [A2aAttributes.skillId]: skillId,
    });
  }

  /** The call failed: status ERROR, the exception, and the A2A error kind it is answered with. */
  fail(error: unknown): void {
    if (this.ended || !this.span) return;
    failSpan(this.span, error);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.span?.end();
    this.closeStream?.();
  }
}

/** Marks `span` as failed by `error`, with its A2A error kind. */
export function failSpan(span: Span, error: unknown): void {
  span.setAttribute(A2aAttributes.errorKind, a2aErrorKindOf(error));
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SPAN_STATUS_ERROR, message: error instanceof Error ? error.message : String(error) });
}
