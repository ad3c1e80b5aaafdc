/**
 * `nestjs-a2a/store`: what a task store or an event bus of your own implements, and the in-memory defaults as
 * references. An app that only picks a store (`postgresTaskStore()`, `redisEventBus()`) needs nothing from here.
 *
 * ```ts
 * class MyTaskStore implements TaskStore { … }   // `update` applies changes with `applyChange`
 * A2aModule.forRoot({ card, taskStore: new MyTaskStore(), eventBus: new InProcessEventBus() })
 * ```
 */
export {
  A2A_TASK_STORE,
  ConcurrentModificationError,
  InvalidPageTokenError,
  type TaskStore,
  type StoredTask,
  type TaskListQuery,
  type TaskPage,
  type VersionedChange,
} from './store/task.store.js';
export type { TaskLeases, LeaseRequest, ExpiredLease, RestartableRun } from './store/task-leases.js';
export {
  pushEventId,
  pushEventsOf,
  type TaskPushStore,
  type StoredPushConfig,
  type PushDelivery,
  type PushDeadLetter,
} from './store/task-push.store.js';
export { applyChange, type TaskChange, type RetainedCopy } from './task/task-reducer.js';
export { A2A_EVENT_BUS, type EventBus, type TaskEventRecord, type StatusOrArtifactEvent } from './bus/event-bus.js';
export type { TaskScope } from './context/call-context.js';
export { HealthCheckFailedError } from './health/health-check-failed.error.js';
export { InMemoryTaskStore, type InMemoryTaskStoreOptions } from './store/in-memory-task.store.js';
export { InProcessEventBus } from './bus/in-process-event-bus.js';
export { InMemoryPushStore } from './store/in-memory-push.store.js';
