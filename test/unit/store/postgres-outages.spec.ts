import { EventEmitter } from 'node:events';
import pg, { type Pool } from 'pg';
import { A2aError } from '../../../libs/a2a/src/errors/a2a.error.js';
import { PostgresTaskStore } from '../../../libs/a2a/src/postgres.js';
import {
  isUnreachable,
  logIdleConnectionErrors,
  STORE_UNREACHABLE,
  unreachableAsUnavailable,
} from '../../../libs/a2a/src/postgres/postgres-outages.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isUnreachable', () => {
  it.each([
    ['a refused connect', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a reset connection', withCode('ECONNRESET')],
    ['an unknown host', withCode('ENOTFOUND')],
    ['a connection failure (SQLSTATE 08006)', withCode('08006')],
    ['an administrator shutdown (57P01)', withCode('57P01', 'terminating connection due to administrator command')],
    ['a server starting up (57P03)', withCode('57P03', 'the database system is starting up')],
    ['too many connections (53300)', withCode('53300')],
    ["pg's lost connection", new Error('Connection terminated unexpectedly')],
    ["pg-pool's connect timeout", new Error('timeout exceeded when trying to connect')],
    ["pg's query timeout", new Error('Query read timeout')],
    ['an error of another realm', { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' }],
  ])('is true for %s', (_what, error) => expect(isUnreachable(error)).toBe(true));

  it.each([
    ['a unique violation (23505)', withCode('23505')],
    ['a syntax error (42601)', withCode('42601')],
    ['a serialization failure (40001), which is a statement refused', withCode('40001')],
    ['a pool that was ended', new Error('Cannot use a pool after calling end on the pool')],
    ['a string', 'ECONNREFUSED'],
    ['undefined', undefined],
  ])('is false for %s', (_what, error) => expect(isUnreachable(error)).toBe(false));
});

describe('unreachableAsUnavailable', () => {
  /** A pool whose next answers are scripted: a value, or an error to reject with. */
  const scripted = (answers: unknown[]) =>
    ({
      query: async () => (answers[0] instanceof Error ? Promise.reject(answers.shift()) : answers.shift()),
    }) as unknown as Pool;
  const logger = () => {
    const lines: string[] = [];
    return {
      lines,
      log: (line: string) => void lines.push(`log: ${line}`),
      warn: (line: string) => void lines.push(`warn: ${line}`),
    };
  };

  it('answers as the pool does, and passes a refused statement on as it is', async () => {
    const refused = withCode('23505');
    const db = unreachableAsUnavailable(scripted([{ rows: [1] }, refused]), logger() as never);
    expect(await db.query('SELECT 1')).toEqual({ rows: [1] });
    await expect(db.query('INSERT')).rejects.toBe(refused);
  });

  it('turns an unreachable database into Unavailable, and says so in the log once when it goes and once when it is back', async () => {
    const log = logger();
    const db = unreachableAsUnavailable(
      scripted([
        withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
        new Error('Connection terminated unexpectedly'),
        { rows: [] },
        { rows: [] },
      ]),
      log as never,
    );
    for (let i = 0; i < 2; i++) {
      const error = await db.query('SELECT 1').catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(A2aError);
      expect(error).toMatchObject({ kind: 'Unavailable', message: STORE_UNREACHABLE });
    }
    await db.query('SELECT 1');
    await db.query('SELECT 1');
    expect(log.lines).toEqual([
      'warn: PostgreSQL cannot be reached (connect ECONNREFUSED 127.0.0.1:5432): calls that need it get Unavailable until it answers',
      'log: PostgreSQL answers again',
    ]);
  });
});

describe('logIdleConnectionErrors', () => {
  it("logs a pool's idle connection errors, which would otherwise crash the process, unless the pool has a listener", () => {
    const warnings: string[] = [];
    const logger = { warn: (line: string) => void warnings.push(line) };
    const bare = new EventEmitter();
    logIdleConnectionErrors(bare as unknown as Pool, logger as never);
    expect(() => bare.emit('error', new Error('terminating connection due to administrator command'))).not.toThrow();
    expect(warnings).toEqual([
      'Idle PostgreSQL connection failed: terminating connection due to administrator command',
    ]);
    const listened = new EventEmitter().on('error', () => undefined);
    logIdleConnectionErrors(listened as unknown as Pool, logger as never);
    expect(listened.listenerCount('error')).toBe(1);
  });
});

describe('PostgresTaskStore on a pool of the app', () => {
  it("listens for its idle connection errors when the app does not, and leaves the app's listener alone", async () => {
    const bare = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
    const listened = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' }).on(
      'error',
      () => undefined,
    );
    new PostgresTaskStore(bare);
    new PostgresTaskStore(listened);
    expect([bare.listenerCount('error'), listened.listenerCount('error')]).toEqual([1, 1]);
    await Promise.all([bare.end(), listened.end()]);
  });
});
