/**
 * `nestjs-a2a/postgres`: tasks in PostgreSQL, an entry point of its own so that apps without a database need no `pg`.
 *
 * ```ts
 * A2aModule.forRootAsync({
 *   useFactory: async () => ({ card, taskStore: await postgresTaskStore({ connectionString, migrate: true }) }),
 * })
 * ```
 */
export { PostgresTaskStore, type PostgresTaskStoreOptions } from './postgres/postgres-task.store.js';
export { postgresTaskStore, type PostgresTaskStoreConfig } from './postgres/postgres-task-store.factory.js';
export { migrateA2aSchema, DEFAULT_A2A_SCHEMA, type MigrateA2aSchemaOptions } from './postgres/postgres.migrations.js';
export { PostgresTaskLeases } from './postgres/postgres-task.leases.js';
export { PostgresPushStore } from './postgres/postgres-push.store.js';
export type { PrunedRows } from './postgres/postgres-task.retention.js';
