import http from 'node:http';
import { SseDataReader } from './sse-data.reader.js';
import type { WireRequest } from './a2a-wire.js';

/** Bounds every call, so a server that stops answering fails its measurement instead of hanging the run. */
const CALL_TIMEOUT_MS = 15_000;

export interface HttpEndpoint {
  hostname: string;
  port: number;
  agent: http.Agent;
}

export function endpoint(origin: string, maxSockets: number): HttpEndpoint {
  const url = new URL(origin);
  return { hostname: url.hostname, port: Number(url.port), agent: new http.Agent({ keepAlive: true, maxSockets }) };
}

export interface UnaryResponse {
  status: number;
  body: string;
}

export function callUnary(to: HttpEndpoint, request: WireRequest): Promise<UnaryResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        hostname: to.hostname,
        port: to.port,
        agent: to.agent,
        method: request.method,
        path: request.path,
        headers: request.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(CALL_TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${CALL_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(request.body);
  });
}

export interface StreamOutcome {
  status: number;
  /** ms from sending the request to the first complete event. */
  firstEventMs: number;
  events: number;
  lastData: string;
  /** Every event's data when asked for (`keepAll`), for the full check; otherwise empty. */
  all: string[];
  /** The body of a non-SSE answer (an error), for the report. */
  body: string;
}

/** Sends a streaming request and reads its SSE answer to the end, counting events as they arrive. */
export function callStream(to: HttpEndpoint, request: WireRequest, keepAll = false): Promise<StreamOutcome> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const outcome: StreamOutcome = { status: 0, firstEventMs: Number.NaN, events: 0, lastData: '', all: [], body: '' };
    const req = http.request(
      {
        hostname: to.hostname,
        port: to.port,
        agent: to.agent,
        method: request.method,
        path: request.path,
        headers: request.headers,
      },
      (res) => {
        outcome.status = res.statusCode ?? 0;
        const isSse = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
        const reader = new SseDataReader();
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (!isSse) {
            outcome.body += chunk;
            return;
          }
          const data = reader.push(chunk);
          if (data.length === 0) return;
          if (outcome.events === 0) outcome.firstEventMs = performance.now() - started;
          outcome.events += data.length;
          outcome.lastData = data[data.length - 1];
          if (keepAll) outcome.all.push(...data);
        });
        res.on('end', () => resolve(outcome));
        res.on('error', reject);
      },
    );
    req.setTimeout(CALL_TIMEOUT_MS, () => req.destroy(new Error(`stream stalled for ${CALL_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(request.body);
  });
}
