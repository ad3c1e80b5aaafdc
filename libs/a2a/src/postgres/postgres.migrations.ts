import type { Pool } from 'pg';

/** The schema the tables live in when none is named. */
export const DEFAULT_A2A_SCHEMA = 'a2a';

/** Where `migrateA2aSchema` applies the migrations. */
export interface MigrateA2aSchemaOptions {
  /** Created if missing. Default `a2a`. */
  schema?: string;
}

/**
 * The schema's history, oldest first. Applied migrations are never edited: a change is a new entry, so a database
 * migrated by any release reaches the same state.
 */
const MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: (schema: string) => string }> = [
  {
    version: 1,
    name: 'tasks, task events, message ids',
    // Keys are COLLATE "C": ListTasks breaks timestamp ties by id in code-point order, whatever the database's locale.
    // The task is `json`, not `jsonb`: jsonb refuses the NUL characters and lone surrogates a request may carry, and
    // reorders keys; `json` keeps the text the store wrote.
    sql: (s) => `
      CREATE TABLE ${s}.a2a_tasks (
        id text COLLATE "C" PRIMARY KEY,
        tenant text COLLATE "C" NOT NULL DEFAULT '',
        owner text COLLATE "C" NOT NULL,
        context_id text COLLATE "C" NOT NULL,
        skill_id text NOT NULL,
        state smallint NOT NULL,
        version bigint NOT NULL,
        task json NOT NULL,
        status_ts timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX a2a_tasks_list ON ${s}.a2a_tasks (tenant, owner, status_ts DESC, id DESC);
      CREATE INDEX a2a_tasks_list_by_context ON ${s}.a2a_tasks (tenant, owner, context_id, status_ts DESC, id DESC);
      CREATE TABLE ${s}.a2a_task_events (
        task_id text COLLATE "C" REFERENCES ${s}.a2a_tasks ON DELETE CASCADE,
        seq bigint,
        payload json NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (task_id, seq)
      );
      CREATE TABLE ${s}.a2a_message_ids (
        tenant text COLLATE "C",
        owner text COLLATE "C",
        message_id text COLLATE "C",
        task_id text COLLATE "C",
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant, owner, message_id)
      );`,
  },
  {
    version: 2,
    name: 'task leases',
    // One row per running skill: the replica running it renews expires_at; an expired row is the reaper's.
    sql: (s) => `
      CREATE TABLE ${s}.a2a_task_leases (
        task_id text COLLATE "C" PRIMARY KEY,
        tenant text COLLATE "C" NOT NULL,
        owner text COLLATE "C" NOT NULL,
        replica_id text NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX a2a_task_leases_expiry ON ${s}.a2a_task_leases (expires_at);
      CREATE INDEX a2a_task_leases_replica ON ${s}.a2a_task_leases (replica_id);
    `,
  },
  {
    version: 3,
    name: 'restartable runs',
    // What a restartable skill's run needs to start again elsewhere (never a credential), and which attempt it is.
    sql: (s) => `ALTER TABLE ${s}.a2a_task_leases ADD COLUMN request json, ADD COLUMN attempt int NOT NULL DEFAULT 1;`,
  },
  {
    version: 4,
    name: 'push configs, outbox, dead letters',
    // Configs have no foreign key: SendMessage's inline config is saved before its task exists. Outbox rows are written
    // by the task's own update statement, one per (config, event); a dispatcher holds a row (claimed_until) while it
    // delivers it, and only the lowest seq of a (task, config) is ever due, so a webhook gets a task's events in order.
    sql: (s) => `
      CREATE TABLE ${s}.a2a_push_configs (
        task_id text COLLATE "C",
        config_id text COLLATE "C",
        tenant text COLLATE "C" NOT NULL,
        owner text COLLATE "C" NOT NULL,
        url text NOT NULL,
        secrets text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (task_id, config_id)
      );
      CREATE TABLE ${s}.a2a_push_outbox (
        task_id text COLLATE "C",
        config_id text COLLATE "C",
        seq bigint,
        payload json NOT NULL,
        attempts int NOT NULL DEFAULT 0,
        first_at timestamptz NOT NULL DEFAULT now(),
        next_at timestamptz NOT NULL DEFAULT now(),
        claimed_until timestamptz,
        PRIMARY KEY (task_id, config_id, seq)
      );
      CREATE INDEX a2a_push_outbox_due ON ${s}.a2a_push_outbox (next_at);
      CREATE TABLE ${s}.a2a_push_dead_letters (
        id bigserial PRIMARY KEY,
        tenant text COLLATE "C" NOT NULL,
        task_id text COLLATE "C" NOT NULL,
        config_id text COLLATE "C" NOT NULL,
        seq bigint NOT NULL,
        attempts int NOT NULL,
        first_at timestamptz NOT NULL,
        last_at timestamptz NOT NULL DEFAULT now(),
        last_status int,
        last_error text NOT NULL
      );
      CREATE INDEX a2a_push_dead_letters_task ON ${s}.a2a_push_dead_letters (task_id, id DESC);
    `,
  },
  {
    version: 5,
    name: 'direct replies of claimed message ids',
    // A send answered by a message has no task: a retried send of its messageId gets this message instead.
    sql: (s) => `ALTER TABLE ${s}.a2a_message_ids ADD COLUMN reply json;`,
  },
  {
    version: 6,
    name: 'configuration digests of claimed message ids',
    // A retried send whose configuration would change the first send's outcome is refused; claims made before have none.
    sql: (s) => `ALTER TABLE ${s}.a2a_message_ids ADD COLUMN configuration text;`,
  },
];

/**
 * Brings `schema` to the latest version: creates it and applies the migrations it lacks, each recorded in
 * `a2a_schema_migrations`. Safe to run again, and from several replicas at once (they queue on an advisory lock).
 * Returns the versions it applied.
 */
export async function migrateA2aSchema(pool: Pool, options: MigrateA2aSchemaOptions = {}): Promise<number[]> {
  const schema = options.schema ?? DEFAULT_A2A_SCHEMA;
  const s = schemaIdentifier(schema);
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    // Held until COMMIT; also covers CREATE SCHEMA, which two connections cannot run concurrently even with IF NOT EXISTS.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`nestjs-a2a migrations ${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.a2a_schema_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${s}.a2a_schema_migrations`);
    const done = new Set(rows.map((row) => row.version));
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue;
      await client.query(migration.sql(s));
      await client.query(`INSERT INTO ${s}.a2a_schema_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    // A connection that cannot even roll back is discarded rather than returned to the pool.
    await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
    throw error;
  } finally {
    client.release(broken);
  }
}

/** The schema name, quoted for SQL. Plain names only: it is spliced into statements, which parameters cannot name. */
export function schemaIdentifier(schema: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new RangeError(
      `PostgreSQL schema "${schema}" is not a plain identifier (letters, digits and _, not starting with a digit, at most 63)`,
    );
  }
  return `"${schema}"`;
}
