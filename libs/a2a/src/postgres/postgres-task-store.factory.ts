import pg from 'pg';
import { migrateA2aSchema } from './postgres.migrations.js';
import { PostgresTaskStore, type PostgresTaskStoreOptions } from './postgres-task.store.js';
import { logIdleConnectionErrors } from './postgres-outages.js';

/**
 * What `postgresTaskStore()` takes: the store's options, and either a pool the app owns or a connection string for a
 * pool the store owns.
 */
export type PostgresTaskStoreConfig = Omit<PostgresTaskStoreOptions, 'endPoolOnClose'> & {
  /** Apply the migrations before returning (`migrateA2aSchema`), for apps that migrate at boot. Default false. */
  migrate?: boolean;
} & (
    | {
        /** A pool the app owns: the store never ends it. */
        pool: pg.Pool;
        connectionString?: never;
      }
    | {
        /** Creates a pool that the store ends on app shutdown (or `close()`). */
        connectionString: string;
        pool?: never;
      }
  );

/**
 * A PostgresTaskStore for the module's `taskStore` option, from a pool or a connection string, migrated first when
 * asked: `A2aModule.forRootAsync({ useFactory: async () => ({ card, taskStore: await postgresTaskStore({ … }) }) })`.
 */
export async function postgresTaskStore({
  pool,
  connectionString,
  migrate = false,
  ...options
}: PostgresTaskStoreConfig): Promise<PostgresTaskStore> {
  const ownPool = pool ?? new pg.Pool({ connectionString });
  logIdleConnectionErrors(ownPool);
  try {
    if (migrate) await migrateA2aSchema(ownPool, { schema: options.schema });
    return new PostgresTaskStore(ownPool, { ...options, endPoolOnClose: !pool });
  } catch (error) {
    if (!pool) await ownPool.end();
    throw error;
  }
}
