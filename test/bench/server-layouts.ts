/** Which servers the bench compares, and where each one mounts its bindings. */
export type ServerName = 'ours' | 'piped' | 'fastify' | 'apikey' | 'jwt' | 'sdk' | 'floor';

export const SERVER_NAMES: readonly ServerName[] = ['ours', 'piped', 'fastify', 'apikey', 'jwt', 'sdk', 'floor'];

/** Our configurations, each compared with the others. */
export const OUR_SERVERS: readonly ServerName[] = ['ours', 'piped', 'fastify', 'apikey', 'jwt'];

export interface ServerLayout {
  /** The compiled wrapper the orchestrator starts, relative to this directory. */
  entry: string;
  label: string;
  jsonRpcPath: string;
  restPrefix: string;
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
  // The SDK's documented layout: its JSON-RPC router guards content types on every request it sees, so it cannot share
  // the root with the REST routes.
  sdk: { entry: 'sdk-server.js', label: '@a2a-js/sdk', jsonRpcPath: '/a2a/jsonrpc', restPrefix: '/a2a/rest' },
  floor: { entry: 'floor-server.js', label: 'floor', jsonRpcPath: '/', restPrefix: '' },
};
