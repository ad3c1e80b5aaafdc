import type { Queryable } from './postgres-outages.js';
import type { PostgresTaskTables } from './postgres-task.tables.js';

/** A new task's row, as its columns hold it, and the deliveries its creation enqueues. */
export interface TaskCreation {
  id: string;
  tenant: string;
  owner: string;
  contextId: string;
  skillId: string;
  state: number;
  version: number;
  task: string;
  statusMs: number | null;
  /** The changes already applied to `task` (its event row), or null. */
  changes: string | null;
  /** Terminal or interrupted: its lease goes. */
  settles: boolean;
  pushed: Array<{ seq: number; payload: string }>;
}

/**
 * New tasks in one statement, each with the event row of the changes already applied to it, the deliveries to its
 * webhooks and, if it is settled already, its lease dropped: per task, whether it was created (an id taken in another
 * scope is not) and whether anything was enqueued for push.
 */
export async function insertTasks(
  db: Queryable,
  tables: PostgresTaskTables,
  batch: TaskCreation[],
): Promise<Array<{ pushed: boolean } | undefined>> {
  // Of several creations of one id, the first is tried and the others lose, whatever happens to it.
  const ids = new Set<string>();
  const firsts = new Set(batch.filter((creation) => !ids.has(creation.id) && ids.add(creation.id)));
  const creations = [...firsts];
  const deliveries = creations.flatMap((creation) => creation.pushed.map((event) => ({ id: creation.id, ...event })));
  const { rows } = await db.query<{ id: string; pushed: string }>(
    `WITH input AS (
         SELECT id COLLATE "C" AS id, tenant, owner, context_id, skill_id, state, version, task, status_ms, changes, settles
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::smallint[], $7::bigint[], $8::json[], $9::float8[],
                     $10::json[], $11::bool[])
           AS i(id, tenant, owner, context_id, skill_id, state, version, task, status_ms, changes, settles)),
       created AS (
         INSERT INTO ${tables.tasks} (id, tenant, owner, context_id, skill_id, state, version, task, status_ts)
         SELECT id, tenant, owner, context_id, skill_id, state, version, task, COALESCE(to_timestamp(status_ms / 1000), '-infinity') FROM input
         ON CONFLICT (id) DO NOTHING RETURNING id),
       logged AS (
         INSERT INTO ${tables.events} (task_id, seq, payload)
         SELECT i.id, i.version, i.changes FROM input i JOIN created c ON c.id = i.id WHERE i.changes IS NOT NULL),
       pushed AS (
         INSERT INTO ${tables.outbox} (task_id, config_id, seq, payload)
         SELECT c.id, p.config_id, e.seq, e.payload
         FROM created c JOIN ${tables.pushConfigs} p ON p.task_id = c.id
         JOIN unnest($12::text[], $13::bigint[], $14::json[]) AS e(task_id, seq, payload) ON e.task_id COLLATE "C" = c.id
         RETURNING task_id),
       unleased AS (DELETE FROM ${tables.leases} WHERE task_id IN (SELECT i.id FROM input i JOIN created c ON c.id = i.id WHERE i.settles))
       SELECT c.id, (SELECT count(*) FROM pushed p WHERE p.task_id = c.id) AS pushed FROM created c`,
    [
      creations.map((creation) => creation.id),
      creations.map((creation) => creation.tenant),
      creations.map((creation) => creation.owner),
      creations.map((creation) => creation.contextId),
      creations.map((creation) => creation.skillId),
      creations.map((creation) => creation.state),
      creations.map((creation) => creation.version),
      creations.map((creation) => creation.task),
      creations.map((creation) => creation.statusMs),
      creations.map((creation) => creation.changes),
      creations.map((creation) => creation.settles),
      // Arrays, not one JSON document: taking a JSON document apart would decode its escapes, and a NUL or a lone
      // surrogate (which events may carry) has no text form in PostgreSQL.
      deliveries.map((delivery) => delivery.id),
      deliveries.map((delivery) => delivery.seq),
      deliveries.map((delivery) => delivery.payload),
    ],
  );
  const created = new Map(rows.map((row) => [row.id, row.pushed !== '0']));
  return batch.map((creation) =>
    firsts.has(creation) && created.has(creation.id) ? { pushed: created.get(creation.id)! } : undefined,
  );
}
