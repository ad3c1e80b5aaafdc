/**
 * The floor: a bare node:http server that does the least any A2A server must (read and parse the request, answer
 * with a correctly shaped body, one write per stream event) and nothing else: responses are precomputed, nothing is
 * stored; the same over gRPC with @grpc/grpc-js. What it costs is what Node's HTTP stack costs; the gap to it is what a framework and an engine add.
 */
import './memory-probe.js';
import http from 'node:http';
import {
  Server,
  ServerCredentials,
  type ServerWritableStream,
  type ServiceDefinition,
  type sendUnaryData,
} from '@grpc/grpc-js';
import {
  SendMessageResponse,
  StreamResponse as ProtoStreamResponse,
  Task as ProtoTask,
  type SendMessageRequest,
} from '@a2a-js/sdk';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import type { StreamResponse, Task } from '../../libs/a2a/src/protocol/a2a.types.js';
import { ECHO_COMMAND, ECHO_TEXT } from './agent-behaviour.checks.js';
import { SERVER_LAYOUTS } from './server-layouts.js';

const port = Number(process.env.PORT ?? 3003);
const grpcAddress = `127.0.0.1:${Number(process.env.GRPC_PORT ?? 50053)}`;
const { jsonRpcPath, restPrefix } = SERVER_LAYOUTS.floor;

const taskId = '7f1c2a52-3c8e-4f0e-9a57-6b2f1d0c9e11';
const contextId = '0c9b8f3e-2d4a-4b1c-8e6f-5a7d9c1b3e22';
const timestamp = '2026-01-01T00:00:00.000Z';

const completedTask: Task = {
  id: taskId,
  contextId,
  status: { state: 'TASK_STATE_COMPLETED', timestamp },
  artifacts: [{ artifactId: 'a0d7c5e1-9b3f-4e2a-8c6d-1f4b7a9e2c33', name: 'echo', parts: [{ text: ECHO_TEXT }] }],
  history: [{ messageId: 'bench-1', contextId, taskId, role: 'ROLE_USER', parts: [{ text: ECHO_COMMAND }] }],
};
const taskJson = JSON.stringify(completedTask);
const restSendBody = Buffer.from(JSON.stringify({ task: completedTask }));
const restTaskBody = Buffer.from(taskJson);
const cardBody = Buffer.from(
  JSON.stringify({
    name: 'Floor',
    description: 'Precomputed answers',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `http://127.0.0.1:${port}${jsonRpcPath}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `http://127.0.0.1:${port}${restPrefix}`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: grpcAddress, protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  }),
);

const streamEventsCache = new Map<number, string[]>();

/** The JSON of each event of `stream <chunks>`, in the conformance agent's order. */
function streamEvents(chunks: number): string[] {
  let events = streamEventsCache.get(chunks);
  if (events) return events;
  const artifactId = 'b5e2d8f1-6c4a-4d3b-9e7f-2a1c8b5d4e44';
  const list: StreamResponse[] = [
    {
      task: {
        id: taskId,
        contextId,
        status: { state: 'TASK_STATE_SUBMITTED', timestamp },
        history: completedTask.history,
      },
    },
    { statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_WORKING', timestamp } } },
  ];
  for (let i = 1; i <= chunks; i++) {
    const artifact = { artifactId, name: 'stream', parts: [{ text: `chunk ${i}` }] };
    list.push({
      artifactUpdate: {
        taskId,
        contextId,
        artifact,
        ...(i > 1 && { append: true }),
        ...(i === chunks && { lastChunk: true }),
      },
    });
  }
  list.push({ statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_COMPLETED', timestamp } } });
  events = list.map((event) => JSON.stringify(event));
  streamEventsCache.set(chunks, events);
  return events;
}

function chunkCount(text: string | undefined): number {
  const n = Number.parseInt(/^stream\s+(\d+)/.exec(text ?? '')?.[1] ?? '', 10);
  return n > 0 ? Math.min(n, 1000) : 3;
}

function sendJson(res: http.ServerResponse, body: Buffer | string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function sendStream(res: http.ServerResponse, events: string[], frame: (event: string) => string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) res.write(frame(event));
  res.end();
}

function answerJsonRpc(res: http.ServerResponse, request: { id?: unknown; method?: string; params?: any }): void {
  const id = JSON.stringify(request.id ?? null);
  switch (request.method) {
    case 'SendMessage':
      return sendJson(res, `{"jsonrpc":"2.0","id":${id},"result":{"task":${taskJson}}}`);
    case 'GetTask':
      return sendJson(res, `{"jsonrpc":"2.0","id":${id},"result":${taskJson}}`);
    case 'SendStreamingMessage':
      return sendStream(
        res,
        streamEvents(chunkCount(request.params?.message?.parts?.[0]?.text)),
        (event) => `data: {"jsonrpc":"2.0","id":${id},"result":${event}}\n\n`,
      );
    default:
      return sendJson(res, `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found"}}`);
  }
}

function answerRest(req: http.IncomingMessage, res: http.ServerResponse, body: any): void {
  const path = (req.url ?? '').slice(restPrefix.length);
  if (req.method === 'POST' && path === '/message:send') return sendJson(res, restSendBody);
  if (req.method === 'POST' && path === '/message:stream')
    return sendStream(res, streamEvents(chunkCount(body.message?.parts?.[0]?.text)), (event) => `data: ${event}\n\n`);
  if (req.method === 'GET' && path.startsWith('/tasks/')) return sendJson(res, restTaskBody);
  res.writeHead(404).end();
}

http
  .createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') return sendJson(res, cardBody);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: any = {};
      try {
        if (chunks.length > 0) body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (req.method === 'POST' && req.url === jsonRpcPath) answerJsonRpc(res, body);
      else answerRest(req, res, body);
    });
  })
  .listen(port, '127.0.0.1');

// gRPC: the requests are decoded (the least a server must do), the answers are bytes encoded once, up front.
const raw = (bytes: Buffer) => bytes;
const grpcSendBytes = A2AService.sendMessage.responseSerialize(SendMessageResponse.fromJSON({ task: completedTask }));
const grpcTaskBytes = A2AService.getTask.responseSerialize(ProtoTask.fromJSON(completedTask));
const grpcStreamCache = new Map<number, Buffer[]>();

function grpcStreamEvents(chunks: number): Buffer[] {
  let frames = grpcStreamCache.get(chunks);
  if (!frames) {
    const encode = A2AService.sendStreamingMessage.responseSerialize;
    frames = streamEvents(chunks).map((event) => encode(ProtoStreamResponse.fromJSON(JSON.parse(event))));
    grpcStreamCache.set(chunks, frames);
  }
  return frames;
}

function requestText(request: SendMessageRequest): string | undefined {
  const content = request.message?.parts[0]?.content;
  return content?.$case === 'text' ? content.value : undefined;
}

const grpcServer = new Server();
grpcServer.addService(
  {
    sendMessage: { ...A2AService.sendMessage, responseSerialize: raw },
    getTask: { ...A2AService.getTask, responseSerialize: raw },
    sendStreamingMessage: { ...A2AService.sendStreamingMessage, responseSerialize: raw },
  } as ServiceDefinition,
  {
    sendMessage: (_call: unknown, callback: sendUnaryData<Buffer>) => callback(null, grpcSendBytes),
    getTask: (_call: unknown, callback: sendUnaryData<Buffer>) => callback(null, grpcTaskBytes),
    sendStreamingMessage: (call: ServerWritableStream<SendMessageRequest, Buffer>) => {
      for (const frame of grpcStreamEvents(chunkCount(requestText(call.request)))) call.write(frame);
      call.end();
    },
  },
);
grpcServer.bindAsync(grpcAddress, ServerCredentials.createInsecure(), (error) => {
  if (error) throw error;
});
