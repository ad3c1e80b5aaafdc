/** Which servers the bench compares, and where each one mounts its bindings. */
export type ServerName = 'ours' | 'piped' | 'fastify' | 'apikey' | 'jwt' | 'ours-pg' | 'sdk' | 'sdk-pg' | 'floor';

export const SERVER_NAMES: readonly ServerName[] = [
  'ours',
  'piped',
  'fastify',
  'apikey',
  'jwt',
  'ours-pg',
  'sdk',
  'sdk-pg',
  'floor',
];

/** The servers that need a database (PostgreSQL, and Redis for ours): run only when BENCH_SERVERS names them. */
export const DATABASE_SERVERS: readonly ServerName[] = ['ours-pg', 'sdk-pg'];

/** What `npm run bench` runs when BENCH_SERVERS is unset: every server that needs nothing but Node. */
export const DEFAULT_SERVERS: readonly ServerName[] = SERVER_NAMES.filter((name) => !DATABASE_SERVERS.includes(name));

/** Our in-memory configurations, each compared with the in-memory SDK and the floor. */
export const OUR_SERVERS: readonly ServerName[] = ['ours', 'piped', 'fastify', 'apikey', 'jwt'];

/**
 * Our server and the SDK's with their tasks in PostgreSQL: compared with each other (run-bench.ts prints their
 * ratios in a table of their own), not with the in-memory columns.
 */
export const DATABASE_PAIR = { ours: 'ours-pg', sdk: 'sdk-pg' } as const satisfies Record<string, ServerName>;

export interface ServerLayout {
  /** The compiled wrapper the orchestrator starts, relative to this directory. */
  entry: string;
  label: string;
  jsonRpcPath: string;
  restPrefix: string;
  /** The database the orchestrator prepares before each start and drops after each stop (bench-database.ts). */
  database?: 'ours' | 'sdk';
}

export const SERVER_LAYOUTS: Record<ServerName, ServerLayout> = {
  // The conformance agent serves both bindings at the root (CONFORMANCE-AGENT.md).
  ours: { entry: 'our-server.js', label: 'ours', jsonRpcPath: '/', restPrefix: '' },
  // The same agent with a global guard, a global interceptor and CORS: what a production app adds.
  piped: { entry: 'our-piped-server.js', label: 'ours+pipeline', jsonRpcPath: '/', restPrefix: '' },
  // The same agent on @nestjs/platform-fastify.
  fastify: { entry: 'our-fastify-server.js', label: 'ours on Fastify', jsonRpcPath: '/', restPrefix: '' },
  // The same agent with option `security`: an API key (A2A_API_KEYS), or a bearer JWT checked against a JWKS.
  apikey: { entry: 'our-apikey-server.js', label: 'ours+API key', jsonRpcPath: '/', restPrefix: '' },
  jwt: { entry: 'our-jwt-server.js', label: 'ours+JWT', jsonRpcPath: '/', restPrefix: '' },
  // The same agent with its tasks in PostgreSQL (A2A_POSTGRES_URL) and its events through Redis (A2A_REDIS_URL).
  'ours-pg': {
    entry: 'our-postgres-server.js',
    label: 'ours+PostgreSQL+Redis',
    jsonRpcPath: '/',
    restPrefix: '',
    database: 'ours',
  },
  // The SDK's documented layout: its JSON-RPC router guards content types on every request it sees, so it cannot share
  // the root with the REST routes.
  sdk: { entry: 'sdk-server.js', label: '@a2a-js/sdk', jsonRpcPath: '/a2a/jsonrpc', restPrefix: '/a2a/rest' },
  // The same SDK server with its own DatabaseTaskStore on the same PostgreSQL.
  'sdk-pg': {
    entry: 'sdk-postgres-server.js',
    label: '@a2a-js/sdk+PostgreSQL',
    jsonRpcPath: '/a2a/jsonrpc',
    restPrefix: '/a2a/rest',
    database: 'sdk',
  },
  floor: { entry: 'floor-server.js', label: 'floor', jsonRpcPath: '/', restPrefix: '' },
};
