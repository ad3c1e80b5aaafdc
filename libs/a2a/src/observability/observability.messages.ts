/** Log lines of tracing, metrics and the audit trail, in one place so tests can import them. */
export const ObservabilityMessages = {
  apiLoadFailed: (error: unknown) =>
    `@opentelemetry/api is installed but could not be loaded (${error instanceof Error ? error.message : String(error)}); tracing and metrics are off.`,
  auditSinkFailed: (error: unknown, suppressed: number) =>
    `The audit sink failed to take a record${suppressed > 0 ? ` (and ${suppressed} more since the last report)` : ''}: ${error instanceof Error ? error.message : String(error)}. The task goes on.`,
} as const;
