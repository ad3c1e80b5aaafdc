import { schemaIdentifier } from './postgres.migrations.js';

/** The qualified names of the tables `migrateA2aSchema` creates in one schema. */
export interface PostgresTaskTables {
  readonly tasks: string;
  readonly events: string;
  readonly messageIds: string;
  readonly leases: string;
  readonly outbox: string;
  readonly pushConfigs: string;
  readonly deadLetters: string;
}

/** The tables of `schema`; throws for a name that is not a plain identifier. */
export function tablesOf(schema: string): PostgresTaskTables {
  const quoted = schemaIdentifier(schema);
  return {
    tasks: `${quoted}.a2a_tasks`,
    events: `${quoted}.a2a_task_events`,
    messageIds: `${quoted}.a2a_message_ids`,
    leases: `${quoted}.a2a_task_leases`,
    outbox: `${quoted}.a2a_push_outbox`,
    pushConfigs: `${quoted}.a2a_push_configs`,
    deadLetters: `${quoted}.a2a_push_dead_letters`,
  };
}
