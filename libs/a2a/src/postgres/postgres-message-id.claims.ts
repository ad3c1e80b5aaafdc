import type { LeaseRequest } from '../store/task-leases.js';
import type { Queryable } from './postgres-outages.js';
import { PostgresTaskLeases } from './postgres-task.leases.js';
import type { PostgresTaskTables } from './postgres-task.tables.js';

/** A message id's claim: its key columns (tenant, owner, message id), the task it names, and the run's lease. */
export interface MessageIdClaim {
  key: string[];
  taskId: string;
  lease?: LeaseRequest;
}

/**
 * Claims of message ids in one statement, each row with the run's lease when it has one: whether each was new. Ids
 * are compared as the columns compare them (COLLATE "C").
 */
export async function insertClaims(
  db: Queryable,
  tables: PostgresTaskTables,
  claims: MessageIdClaim[],
): Promise<boolean[]> {
  const { rows } = await db.query<{ task_id: string }>(
    `WITH input AS (
         SELECT tenant, owner, message_id, task_id COLLATE "C" AS task_id, replica_id, ttl_ms, request, attempt
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::json[], $8::int[])
           AS i(tenant, owner, message_id, task_id, replica_id, ttl_ms, request, attempt)),
       claimed AS (
         INSERT INTO ${tables.messageIds} (tenant, owner, message_id, task_id)
         SELECT tenant, owner, message_id, task_id FROM input ON CONFLICT DO NOTHING RETURNING task_id),
       leased AS (${PostgresTaskLeases.upsert(
         tables.leases,
         `SELECT i.task_id, i.tenant, i.owner, i.replica_id, now() + i.ttl_ms * interval '1 millisecond', i.request, i.attempt
          FROM input i JOIN claimed c ON c.task_id = i.task_id WHERE i.replica_id IS NOT NULL`,
       )})
       SELECT task_id FROM claimed`,
    [
      claims.map((claim) => claim.key[0]),
      claims.map((claim) => claim.key[1]),
      claims.map((claim) => claim.key[2]),
      claims.map((claim) => claim.taskId),
      claims.map((claim) => claim.lease?.replicaId ?? null),
      claims.map((claim) => claim.lease?.ttlMs ?? null),
      claims.map((claim) => (claim.lease?.restart ? JSON.stringify(claim.lease.restart) : null)),
      claims.map((claim) => claim.lease?.restart?.attempt ?? 1),
    ],
  );
  const claimed = new Set(rows.map((row) => row.task_id));
  return claims.map((claim) => claimed.has(claim.taskId));
}
