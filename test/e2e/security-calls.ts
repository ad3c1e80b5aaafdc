import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { A2A_ERROR_CODES } from '../../libs/a2a/src/errors/a2a-error-codes.js';
import { GrpcJsonClient, type Json } from './grpc-json.client.js';

/** The three bindings, called the same way, so each security case runs on each. */
export type Binding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';
export const BINDINGS: readonly Binding[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

/**
 * A call's outcome in binding-neutral terms: `status` is the google.rpc code name (`OK`, `UNAUTHENTICATED`,
 * `PERMISSION_DENIED`, `NOT_FOUND`, …), with what each binding adds: the HTTP status and headers, the JSON-RPC code.
 */
export interface CallOutcome {
  status: string;
  result?: Json;
  httpStatus?: number;
  jsonRpcCode?: number;
  wwwAuthenticate?: string[];
  retryAfter?: string;
  cacheControl?: string;
  /** The raw error body (HTTP bindings), to compare answers byte for byte. */
  errorBody?: string;
}

export type Operation =
  | 'SendMessage'
  | 'SendStreamingMessage'
  | 'GetTask'
  | 'ListTasks'
  | 'CancelTask'
  | 'GetExtendedAgentCard'
  | 'SubscribeToTask'
  | 'CreateTaskPushNotificationConfig'
  | 'GetTaskPushNotificationConfig'
  | 'ListTaskPushNotificationConfigs'
  | 'DeleteTaskPushNotificationConfig';

export interface SecurityTarget {
  httpUrl: string;
  grpc: GrpcJsonClient;
  /** Where the HTTP bindings are mounted. Default `/a2a/jsonrpc` and `/a2a/rest`. */
  paths?: { jsonRpc: string; rest: string };
}

/** Credentials as headers; the same names become gRPC metadata (lowercased). */
export type Credentials = Record<string, string>;

export async function call(target: SecurityTarget, binding: Binding, operation: Operation, request: Json, credentials: Credentials = {}, tenant?: string): Promise<CallOutcome> {
  if (binding === 'GRPC') return grpcCall(target.grpc, operation, tenant ? { ...request, tenant } : request, credentials);
  const paths = target.paths ?? { jsonRpc: '/a2a/jsonrpc', rest: '/a2a/rest' };
  if (binding === 'JSONRPC') return jsonRpcCall(`${target.httpUrl}${paths.jsonRpc}`, operation, tenant ? { ...request, tenant } : request, credentials);
  return restCall(`${target.httpUrl}${paths.rest}`, operation, request, credentials, tenant);
}

const CODE_NAMES: Record<number, string> = Object.fromEntries(Object.entries(GrpcStatus).filter(([, v]) => typeof v === 'number').map(([k, v]) => [v as number, k]));

async function grpcCall(client: GrpcJsonClient, operation: Operation, request: Json, credentials: Credentials): Promise<CallOutcome> {
  const metadata = Object.fromEntries(Object.entries(credentials).map(([k, v]) => [k.toLowerCase(), v]));
  try {
    if (operation === 'SubscribeToTask' || operation === 'SendStreamingMessage') {
      const events = await client.collect(operation, request, metadata);
      return { status: 'OK', result: { events } as Json };
    }
    return { status: 'OK', result: await client.unary(operation, request, metadata) };
  } catch (error) {
    const e = error as ServiceError;
    const www = e.metadata?.get('www-authenticate').flatMap((value) => splitChallenges(String(value)));
    const retry = e.metadata?.get('retry-after').map(String)[0];
    return { status: CODE_NAMES[e.code] ?? String(e.code), ...(www?.length ? { wwwAuthenticate: www } : {}), ...(retry ? { retryAfter: retry } : {}) };
  }
}

async function jsonRpcCall(endpoint: string, operation: Operation, params: Json, credentials: Credentials): Promise<CallOutcome> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...credentials },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: operation, params }),
  });
  const text = await response.text();
  const headers = httpHeadersOf(response);
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) return { status: 'OK', httpStatus: response.status, result: { sse: text } as Json, ...headers };
  const body = JSON.parse(text) as { result?: Json; error?: { code: number } };
  if (body.error) {
    const kind = Object.values(A2A_ERROR_CODES).find((code) => code.jsonRpc === body.error!.code);
    return { status: kind?.grpcStatus ?? `JSONRPC ${body.error.code}`, httpStatus: response.status, jsonRpcCode: body.error.code, errorBody: text, ...headers };
  }
  return { status: 'OK', httpStatus: response.status, result: body.result, ...headers };
}

async function restCall(base: string, operation: Operation, request: Json, credentials: Credentials, tenant?: string): Promise<CallOutcome> {
  const root = `${base}${tenant ? `/${encodeURIComponent(tenant)}` : ''}`;
  const [method, path, body] = restRouteOf(operation, request);
  const response = await fetch(`${root}${path}`, {
    method,
    headers: { 'a2a-version': '1.0', ...(body ? { 'content-type': 'application/json' } : {}), ...credentials },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  const headers = httpHeadersOf(response);
  if (response.ok) {
    const sse = response.headers.get('content-type')?.startsWith('text/event-stream');
    return { status: 'OK', httpStatus: response.status, result: sse ? ({ sse: text } as Json) : ((text ? JSON.parse(text) : {}) as Json), ...headers };
  }
  const error = (JSON.parse(text) as { error: { status: string } }).error;
  return { status: error.status, httpStatus: response.status, errorBody: text, ...headers };
}

function restRouteOf(operation: Operation, request: Json): [string, string, Json | undefined] {
  const id = encodeURIComponent(String(request.id ?? ''));
  const configs = `/tasks/${encodeURIComponent(String(request.taskId ?? ''))}/pushNotificationConfigs`;
  switch (operation) {
    case 'SendMessage':
      return ['POST', '/message:send', request];
    case 'SendStreamingMessage':
      return ['POST', '/message:stream', request];
    case 'GetTask':
      return ['GET', `/tasks/${id}`, undefined];
    case 'ListTasks':
      return ['GET', `/tasks?${new URLSearchParams(request as Record<string, string>)}`, undefined];
    case 'CancelTask':
      return ['POST', `/tasks/${id}:cancel`, {}];
    case 'SubscribeToTask':
      return ['GET', `/tasks/${id}:subscribe`, undefined];
    case 'GetExtendedAgentCard':
      return ['GET', '/extendedAgentCard', undefined];
    case 'CreateTaskPushNotificationConfig':
      return ['POST', configs, request];
    case 'ListTaskPushNotificationConfigs':
      return ['GET', configs, undefined];
    case 'GetTaskPushNotificationConfig':
      return ['GET', `${configs}/${id}`, undefined];
    case 'DeleteTaskPushNotificationConfig':
      return ['DELETE', `${configs}/${id}`, undefined];
  }
}

function httpHeadersOf(response: Response): Pick<CallOutcome, 'wwwAuthenticate' | 'retryAfter' | 'cacheControl'> {
  const www = response.headers.get('www-authenticate');
  const retry = response.headers.get('retry-after');
  const cache = response.headers.get('cache-control');
  return {
    // fetch joins repeated fields with ", "; split where a new challenge starts.
    ...(www ? { wwwAuthenticate: splitChallenges(www) } : {}),
    ...(retry ? { retryAfter: retry } : {}),
    ...(cache ? { cacheControl: cache } : {}),
  };
}

/** Repeated challenge fields arrive joined with ", " (fetch, grpc-js): split where a new challenge starts. */
function splitChallenges(value: string): string[] {
  return value.split(/, (?=[A-Za-z]+ realm=)/);
}
