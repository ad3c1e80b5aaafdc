/** Default name of the tracer and the meter (option `observability.tracerName`). */
export const A2A_TRACER_NAME = 'nestjs-a2a';

/** Span and metric attributes. */
export const A2aAttributes = {
  binding: 'a2a.binding',
  operation: 'a2a.operation',
  taskId: 'a2a.task.id',
  contextId: 'a2a.context.id',
  skillId: 'a2a.skill.id',
  tenant: 'a2a.tenant',
  attempt: 'a2a.skill.attempt',
  /** On a skill run's span: the run was stopped (CancelTask, a lost lease) before it ended. */
  stopped: 'a2a.skill.stopped',
  state: 'a2a.task.state',
  errorKind: 'a2a.error.kind',
  /** On a client span: the called agent's card `name`. */
  agentName: 'a2a.agent.name',
  /** On a client span: the URL of the called agent's card. */
  agentCardUrl: 'a2a.agent.card.url',
  /** On a client span: the URL of the interface the call went to (the last one tried). */
  interfaceUrl: 'a2a.interface.url',
} as const;

/** The instruments of the meter. */
export const A2aMetricNames = {
  /** UpDownCounter: tasks in each state (attribute `a2a.task.state`), as this replica committed their changes. */
  tasks: 'a2a.tasks',
  /** Histogram, seconds: how long a task stayed in a state (attribute `a2a.task.state`), recorded when it leaves it. */
  timeInState: 'a2a.task.state.duration',
  /** UpDownCounter: SendStreamingMessage and SubscribeToTask calls open (attributes `a2a.binding`, `a2a.operation`). */
  openStreams: 'a2a.streams.open',
} as const;
