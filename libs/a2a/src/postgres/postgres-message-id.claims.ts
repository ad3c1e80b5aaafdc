import type { TaskScope } from '../context/call-context.js';
import type { Message } from '../protocol/a2a.types.js';
import type { LeaseRequest } from '../store/task-leases.js';
import { textKey, untextKey } from './postgres-task.columns.js';
import type { Queryable } from './postgres-outages.js';
import { PostgresTaskLeases } from './postgres-task.leases.js';
import type { PostgresTaskTables } from './postgres-task.tables.js';

/**
 * A message id's claim: its key columns (tenant, owner, message id), the task it names, the run's lease, and the
 * digest of the send's configuration.
 */
export interface MessageIdClaim {
  key: string[];
  taskId: string;
  lease?: LeaseRequest;
  configuration?: string;
}

/** The key columns of `messageId`'s claim in `scope`. */
export function claimKey(scope: TaskScope, messageId: string): string[] {
  return [textKey(scope.tenant), textKey(scope.owner), textKey(messageId)];
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
         SELECT tenant, owner, message_id, task_id COLLATE "C" AS task_id, replica_id, ttl_ms, request, attempt, configuration
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::json[], $8::int[], $9::text[])
           AS i(tenant, owner, message_id, task_id, replica_id, ttl_ms, request, attempt, configuration)),
       claimed AS (
         INSERT INTO ${tables.messageIds} (tenant, owner, message_id, task_id, configuration)
         SELECT tenant, owner, message_id, task_id, configuration FROM input ON CONFLICT DO NOTHING RETURNING task_id),
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
      claims.map((claim) => claim.configuration ?? null),
    ],
  );
  const claimed = new Set(rows.map((row) => row.task_id));
  return claims.map((claim) => claimed.has(claim.taskId));
}

/** The task and configuration digest of a claim, read after losing the race to insert it. */
export async function readClaim(
  db: Queryable,
  tables: PostgresTaskTables,
  key: string[],
): Promise<{ taskId: string; configuration?: string } | undefined> {
  const { rows } = await db.query<{ task_id: string; configuration: string | null }>(
    `SELECT task_id, configuration FROM ${tables.messageIds} WHERE tenant = $1 AND owner = $2 AND message_id = $3`,
    key,
  );
  return rows[0] && { taskId: untextKey(rows[0].task_id), configuration: rows[0].configuration ?? undefined };
}

/** Keeps a direct reply on the claim that still names `taskId`, dropping that run's lease in the same statement. */
export async function recordClaimReply(
  db: Queryable,
  tables: PostgresTaskTables,
  key: string[],
  taskId: string,
  reply: Message,
): Promise<void> {
  await db.query(
    `WITH released AS (DELETE FROM ${tables.leases} WHERE task_id = $4)
     UPDATE ${tables.messageIds} SET reply = $5 WHERE tenant = $1 AND owner = $2 AND message_id = $3 AND task_id = $4`,
    [...key, textKey(taskId), JSON.stringify(reply)],
  );
}

/** The direct reply kept on a claim, if any. */
export async function claimReplyOf(
  db: Queryable,
  tables: PostgresTaskTables,
  key: string[],
): Promise<Message | undefined> {
  const { rows } = await db.query<{ reply: Message | null }>(
    `SELECT reply FROM ${tables.messageIds} WHERE tenant = $1 AND owner = $2 AND message_id = $3`,
    key,
  );
  return rows[0]?.reply ?? undefined;
}
