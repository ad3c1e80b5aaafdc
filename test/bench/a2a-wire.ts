import { ECHO_COMMAND, streamCommand, type Json } from './agent-behaviour.checks.js';
import type { BenchTarget, Binding } from './driver-protocol.js';
import { benchCredentialHeaders } from './bench-credentials.js';

/** The bindings that run over plain HTTP. */
export type HttpBinding = Exclude<Binding, 'grpc'>;

/** One HTTP request of the A2A wire, ready for node:http. */
export interface WireRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

// The key our-piped-server.ts's guard checks, and the credentials of the secured servers; the others ignore them.
const JSON_HEADERS = {
  'content-type': 'application/json',
  'a2a-version': '1.0',
  'x-bench-key': 'bench',
  ...benchCredentialHeaders(),
};
const SSE_HEADERS = { ...JSON_HEADERS, accept: 'text/event-stream' };

// Unique per request, like a real client's, without the cost of a UUID in the driver's hot loop.
let sequence = 0;
const idPrefix = `bench-${process.pid}-`;

function messageJson(text: string): string {
  return `{"messageId":"${idPrefix}${++sequence}","role":"ROLE_USER","parts":[{"text":"${text}"}]}`;
}

function jsonRpc(target: BenchTarget, method: string, params: string, headers = JSON_HEADERS): WireRequest {
  const body = `{"jsonrpc":"2.0","id":${sequence},"method":"${method}","params":${params}}`;
  return { method: 'POST', path: target.jsonRpcPath, headers: withLength(headers, body), body };
}

function withLength(headers: Record<string, string>, body: string): Record<string, string> {
  return { ...headers, 'content-length': String(Buffer.byteLength(body)) };
}

/** SendMessage `echo hello`: a task that completes with one artifact. */
export function sendMessageRequest(target: BenchTarget, binding: HttpBinding): WireRequest {
  const params = `{"message":${messageJson(ECHO_COMMAND)}}`;
  if (binding === 'jsonrpc') return jsonRpc(target, 'SendMessage', params);
  return {
    method: 'POST',
    path: `${target.restPrefix}/message:send`,
    headers: withLength(JSON_HEADERS, params),
    body: params,
  };
}

export function getTaskRequest(target: BenchTarget, binding: HttpBinding, taskId: string): WireRequest {
  if (binding === 'jsonrpc') {
    ++sequence;
    return jsonRpc(target, 'GetTask', `{"id":"${taskId}"}`);
  }
  return { method: 'GET', path: `${target.restPrefix}/tasks/${encodeURIComponent(taskId)}`, headers: JSON_HEADERS };
}

/** SendStreamingMessage `stream <chunks>`. */
export function streamRequest(target: BenchTarget, binding: HttpBinding, chunks: number): WireRequest {
  const params = `{"message":${messageJson(streamCommand(chunks))}}`;
  if (binding === 'jsonrpc') return jsonRpc(target, 'SendStreamingMessage', params, SSE_HEADERS);
  return {
    method: 'POST',
    path: `${target.restPrefix}/message:stream`,
    headers: withLength(SSE_HEADERS, params),
    body: params,
  };
}

/**
 * The cheap per-response check of the timed loops: a JSON-RPC response must carry a result (errors come with HTTP
 * 200 too); an HTTP+JSON one is judged by its status, checked by the caller.
 */
export function looksSuccessful(binding: HttpBinding, body: string): boolean {
  return binding === 'rest' || body.includes('"result"');
}

/** The JSON-RPC `result` or the HTTP+JSON body; throws with the server's error when there is none. */
export function payloadOf(binding: HttpBinding, body: string): Json {
  const parsed = JSON.parse(body) as Json;
  if (binding === 'rest') return parsed;
  if (parsed.error !== undefined) throw new Error(`JSON-RPC error ${JSON.stringify(parsed.error).slice(0, 200)}`);
  return parsed.result as Json;
}
