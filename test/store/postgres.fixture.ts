import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The database the PostgreSQL suites create their schemas in. */
export const TEST_POSTGRES_URL = process.env.A2A_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Whether PostgreSQL answers at TEST_POSTGRES_URL. In CI (`CI=true`) an unreachable database fails the suite: a
 * skipped store suite would pass silently. Elsewhere the suite is skipped, and says why.
 */
export async function postgresReachable(suite: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    const why = `PostgreSQL at ${TEST_POSTGRES_URL} is unreachable (${(error as Error).message || String(error)})`;
    if (process.env.CI === 'true') throw new Error(`${why}. CI runs ${suite} against it: .ci/run starts PostgreSQL, or set A2A_TEST_POSTGRES_URL.`);
    console.warn(`Skipping ${suite}: ${why}. Set A2A_TEST_POSTGRES_URL to a database the tests may create schemas in.`);
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A schema name of this run's own, so parallel runs and leftovers never meet. */
export function testSchemaName(): string {
  return `a2a_it_${randomBytes(6).toString('hex')}`;
}

export async function dropSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}
