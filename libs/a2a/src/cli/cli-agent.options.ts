import { isIP } from 'node:net';
import type { A2aAgentOptions, A2aClientCredentials } from '../client/a2a-client.options.js';
import type { CliInvocation } from './cli.args.js';

/** The environment variables the CLI reads credentials from when no flag gives them. */
export const CLI_ENV = { apiKey: 'A2A_API_KEY', bearer: 'A2A_BEARER_TOKEN' } as const;

const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/**
 * The client's options for the agent the command line names. The client dials only public https addresses unless
 * told otherwise (its SSRF guard); the host the user typed is theirs to reach, so a plain-http URL or an IP literal
 * allows that host (and a loopback one all of loopback, as cards often say `localhost` where the user typed
 * `127.0.0.1`). Whatever else the card points at needs `--allow-host`. Credentials go to the card's origin only, and
 * to `--allow-origin`s.
 */
export function agentOptionsOf(invocation: CliInvocation, env: NodeJS.ProcessEnv): A2aAgentOptions {
  const credentials = credentialsOf(invocation, env);
  return {
    cardUrl: invocation.url,
    network: networkOf(invocation),
    ...(credentials ? { credentials } : {}),
    ...(invocation.binding ? { preferredTransports: [invocation.binding] } : {}),
    ...(invocation.timeoutMs === undefined ? {} : { timeoutMs: invocation.timeoutMs }),
    // A command-line tool has no trace to continue.
    tracing: false,
  };
}

function networkOf(invocation: CliInvocation): NonNullable<A2aAgentOptions['network']> {
  const hosts = new Set<string>();
  const cidrs = new Set<string>();
  const url = new URL(invocation.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol === 'http:' || isIP(host) !== 0 || LOOPBACK_NAMES.has(host)) hosts.add(host);
  if (LOOPBACK_NAMES.has(host) || host.startsWith('127.')) {
    hosts.add('localhost');
    cidrs.add('127.0.0.0/8');
    cidrs.add('::1/128');
  }
  for (const entry of invocation.allowHosts) (entry.includes('/') ? cidrs : hosts).add(entry);
  return { allowedHosts: [...hosts], allowedCidrs: [...cidrs] };
}

function credentialsOf(invocation: CliInvocation, env: NodeJS.ProcessEnv): A2aClientCredentials | undefined {
  const apiKey = invocation.apiKey ?? nonEmpty(env[CLI_ENV.apiKey]);
  const bearer = invocation.bearer ?? nonEmpty(env[CLI_ENV.bearer]);
  if (apiKey === undefined && bearer === undefined) return undefined;
  return {
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(bearer === undefined ? {} : { bearer }),
    ...(invocation.allowOrigins.length > 0 ? { allowedOrigins: invocation.allowOrigins } : {}),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
