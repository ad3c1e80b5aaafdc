/**
 * `nestjs-a2a/terminus`: a `@nestjs/terminus` health indicator for the agent's task store and event bus, an entry point
 * of its own so that apps without health checks need no `@nestjs/terminus` (an optional peer).
 *
 * ```ts
 * @Module({ imports: [A2aModule.forRoot({ … }), TerminusModule], controllers: [HealthController], providers: [A2aHealthIndicator] })
 * ```
 */
export {
  A2aHealthIndicator,
  DEFAULT_A2A_HEALTH_TIMEOUT_MS,
  type A2aHealthCheckOptions,
  type A2aHealthDetails,
  type A2aComponentHealth,
} from './terminus/a2a-health.indicator.js';
