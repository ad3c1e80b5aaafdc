/**
 * Module option `observability`: tracing and metrics through `@opentelemetry/api` (an optional peer), loaded with
 * `import()` at bootstrap. Without the package both are off and cost nothing; with it, both are on by default and
 * record only once an SDK has registered a tracer or meter provider (until then they cost a lookup per call).
 */
export interface A2aObservabilityOptions {
  /**
   * A SERVER span per operation (`a2a.<Operation>`, a child of the caller's W3C `traceparent`) and a span per skill
   * run (`a2a.skill <skillId>`), active while the skill runs. Default true.
   */
  tracing?: boolean;
  /** Tasks by state, time in state and open streams, from the committed task events. Default true. */
  metrics?: boolean;
  /** Name of the tracer and of the meter. Default `'nestjs-a2a'`. */
  tracerName?: string;
}
