/**
 * Applies the PostgreSQL migrations (`npm run db:migrate`): the database from `A2A_POSTGRES_URL`, the schema from
 * `A2A_POSTGRES_SCHEMA` (default `a2a`). For deployments that migrate before starting replicas, not at boot.
 */
import pg from 'pg';
import { DEFAULT_A2A_SCHEMA, migrateA2aSchema } from './postgres.migrations.js';

const connectionString = process.env.A2A_POSTGRES_URL;
const schema = process.env.A2A_POSTGRES_SCHEMA || DEFAULT_A2A_SCHEMA;
if (!connectionString) {
  console.error('A2A_POSTGRES_URL is not set (e.g. postgres://user@127.0.0.1:5432/db)');
  process.exit(2);
}
const pool = new pg.Pool({ connectionString, max: 1 });
try {
  const applied = await migrateA2aSchema(pool, { schema });
  console.log(
    applied.length > 0
      ? `Schema "${schema}": applied migrations ${applied.join(', ')}`
      : `Schema "${schema}" is up to date`,
  );
} catch (error) {
  console.error(`Migrating schema "${schema}" failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await pool.end();
}
