import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { A2A_EVENT_BUS, type EventBus } from '../bus/event-bus.js';
import { withinDeadline } from '../health/within-deadline.js';
import { A2A_TASK_STORE, type TaskStore } from '../store/task.store.js';

/** How long the store and the bus each get to answer, unless `isHealthy` is told otherwise. */
export const DEFAULT_A2A_HEALTH_TIMEOUT_MS = 3_000;

export interface A2aHealthCheckOptions {
  /** How long the store and the bus each get to answer, in ms; longer counts as down. Default 3000. */
  timeoutMs?: number;
}

/** What the indicator says of the task store or the event bus. */
export type A2aComponentHealth = { kind: string; status: 'up' } | { kind: string; status: 'down'; error: string };

/** The details under the indicator's key, beside its `status`. */
export interface A2aHealthDetails {
  [detail: string]: A2aComponentHealth;
  store: A2aComponentHealth;
  bus: A2aComponentHealth;
}

/**
 * A `@nestjs/terminus` health indicator for the agent's task store and event bus: `up` when both can serve, else
 * `down`, with each one's kind (its class) and error. The PostgreSQL store runs `SELECT 1`, the Redis bus checks its
 * connections and PINGs; in-memory ones are always up. Both are checked at once and each within `timeoutMs`, so a
 * hung backend makes the check `down`, never a hung request.
 *
 * Provide it in the module that imports `A2aModule` and `TerminusModule`:
 *
 * ```ts
 * @Controller('health')
 * class HealthController {
 *   constructor(private readonly health: HealthCheckService, private readonly a2a: A2aHealthIndicator) {}
 *
 *   @Get() @HealthCheck()
 *   check() {
 *     return this.health.check([() => this.a2a.isHealthy()]);
 *   }
 * }
 * ```
 */
@Injectable()
export class A2aHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    @Inject(A2A_TASK_STORE) private readonly store: TaskStore,
    @Inject(A2A_EVENT_BUS) private readonly bus: EventBus,
  ) {}

  /**
   * Up under `key` when the task store and the event bus each answer their health check within `timeoutMs`; down (with
   * the cause) otherwise.
   */
  async isHealthy<const Key extends string = 'a2a'>(
    key: Key = 'a2a' as Key,
    { timeoutMs = DEFAULT_A2A_HEALTH_TIMEOUT_MS }: A2aHealthCheckOptions = {},
  ): Promise<HealthIndicatorResult<Key>> {
    const indicator = this.health.check(key);
    const [store, bus] = await Promise.all([
      componentHealth(this.store, 'task store', timeoutMs),
      componentHealth(this.bus, 'event bus', timeoutMs),
    ]);
    const details: A2aHealthDetails = { store, bus };
    return store.status === 'up' && bus.status === 'up' ? indicator.up(details) : indicator.down(details);
  }
}

async function componentHealth(
  component: TaskStore | EventBus,
  what: string,
  timeoutMs: number,
): Promise<A2aComponentHealth> {
  const kind = kindOf(component);
  if (!component.healthCheck) return { kind, status: 'up' };
  try {
    // A healthCheck that throws synchronously counts as down too.
    await withinDeadline(
      Promise.resolve().then(() => component.healthCheck!()),
      timeoutMs,
      `The ${what} (${kind})`,
    );
    return { kind, status: 'up' };
  } catch (error) {
    return { kind, status: 'down', error: reasonOf(error) };
  }
}

/** An error's message; a refused dual-stack connect (an AggregateError) has none, but a code. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.message || (error as NodeJS.ErrnoException).code || error.name;
}

/** The class of a store or bus (`PostgresTaskStore`, `RedisEventBus`, …): which backend the details are about. */
function kindOf(component: object): string {
  const name = (component.constructor as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' && name !== '' && name !== 'Object' ? name : 'custom';
}
