import { Logger } from '@nestjs/common';
import type { Queryable } from './postgres-outages.js';
import type { PostgresTaskTables } from './postgres-task.tables.js';

const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;
const DEFAULT_PRUNE_EVERY_MS = 10 * 60 * 1000;
/** Rows deleted per statement, so that a janitor catching up never holds long locks. */
const PRUNE_BATCH = 5_000;

/** How many rows of each kind a prune deleted. */
export interface PrunedRows {
  events: number;
  messageIds: number;
  pushConfigs: number;
}

/**
 * Starts the janitor: `prune(afterMs)` every `everyMs` (defaults 24 h and 10 min), a failure logged; none for `false`.
 * The timer does not keep the process alive.
 */
export function startJanitor(
  retention: { afterMs?: number; everyMs?: number } | false | undefined,
  prune: (afterMs: number) => Promise<unknown>,
): NodeJS.Timeout | undefined {
  if (retention === false) return undefined;
  const afterMs = retention?.afterMs ?? DEFAULT_RETENTION_MS;
  const everyMs = retention?.everyMs ?? DEFAULT_PRUNE_EVERY_MS;
  if (!(Number.isInteger(afterMs) && afterMs >= 0 && Number.isInteger(everyMs) && everyMs >= 1000)) {
    throw new RangeError(`retention needs afterMs ≥ 0 and everyMs ≥ 1000 (whole ms), got ${JSON.stringify(retention)}`);
  }
  // Every replica runs it: the deletes are idempotent, and one that dies leaves no backlog behind.
  const janitor = setInterval(
    () =>
      void prune(afterMs).catch((error: Error) =>
        new Logger('PostgresTaskStore').warn(`Pruning old rows failed: ${error.message}`),
      ),
    everyMs,
  );
  janitor.unref();
  return janitor;
}

/**
 * Deletes the event rows of tasks terminal for more than `olderThanMs` (a reader resuming one of those gets the
 * final task instead of the events it missed) and the message ids older than that (a send retried that late starts
 * a new task), and the push configs of those tasks once nothing is left to deliver. Returns how many rows of each went.
 */
export async function pruneOldRows(
  db: Queryable,
  tables: PostgresTaskTables,
  olderThanMs: number,
): Promise<PrunedRows> {
  const deleted = { events: 0, messageIds: 0, pushConfigs: 0 };
  for (;;) {
    const { rowCount } = await db.query(
      `DELETE FROM ${tables.events} WHERE ctid IN (
           SELECT e.ctid FROM ${tables.events} e JOIN ${tables.tasks} t ON t.id = e.task_id
           WHERE t.state IN (3, 4, 5, 7) AND t.status_ts < now() - $1 * interval '1 millisecond' LIMIT ${PRUNE_BATCH})`,
      [olderThanMs],
    );
    deleted.events += rowCount ?? 0;
    if ((rowCount ?? 0) < PRUNE_BATCH) break;
  }
  for (;;) {
    const { rowCount } = await db.query(
      `DELETE FROM ${tables.messageIds} WHERE ctid IN (
           SELECT ctid FROM ${tables.messageIds} WHERE created_at < now() - $1 * interval '1 millisecond' LIMIT ${PRUNE_BATCH})`,
      [olderThanMs],
    );
    deleted.messageIds += rowCount ?? 0;
    if ((rowCount ?? 0) < PRUNE_BATCH) break;
  }
  // Webhooks of tasks that ended that long ago, or whose task never came (a send answered by a message), once
  // nothing is left to deliver to them.
  const { rowCount } = await db.query(
    `DELETE FROM ${tables.pushConfigs} c
       WHERE c.created_at < now() - $1 * interval '1 millisecond'
         AND NOT EXISTS (SELECT 1 FROM ${tables.tasks} t WHERE t.id = c.task_id AND (t.state NOT IN (3, 4, 5, 7) OR t.status_ts >= now() - $1 * interval '1 millisecond'))
         AND NOT EXISTS (SELECT 1 FROM ${tables.outbox} o WHERE o.task_id = c.task_id AND o.config_id = c.config_id)`,
    [olderThanMs],
  );
  deleted.pushConfigs = rowCount ?? 0;
  return deleted;
}
