/**
 * `nestjs-a2a/redis`: the event bus across replicas, an entry point of its own so that single-process apps need no
 * Redis client (`ioredis` is an optional peer).
 *
 * ```ts
 * A2aModule.forRoot({ card, taskStore: sharedStore, eventBus: redisEventBus({ url: 'redis://localhost:6379' }) })
 * ```
 */
export { RedisEventBus, redisEventBus, type RedisEventBusOptions } from './redis/redis-event.bus.js';
