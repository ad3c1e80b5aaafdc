import { Client, credentials, Metadata, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js';
import { GetTaskRequest, SendMessageRequest, SendMessageResponse, StreamResponse, Task } from '@a2a-js/sdk';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import {
  checkCompletedEchoTask,
  checkStreamEvents,
  ECHO_COMMAND,
  streamCommand,
  type Json,
} from './agent-behaviour.checks.js';
import type { BindingClient } from './binding-client.js';
import type { BenchTarget } from './driver-protocol.js';
import { benchCredentialHeaders } from './bench-credentials.js';

const CALL_TIMEOUT_MS = 15_000;
const CONNECT_TIMEOUT_MS = 5_000;

/** Answers stay undecoded in the timed loops: the status says whether a call worked, and decoding is client work. */
const raw = (bytes: Buffer) => bytes;

// Unique per request, like a real client's.
let sequence = 0;
const idPrefix = `bench-grpc-${process.pid}-`;

function sendRequest(text: string): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: `${idPrefix}${++sequence}`, role: 'ROLE_USER', parts: [{ text }] },
  });
}

function describe(error: ServiceError): Error {
  return new Error(`gRPC ${error.code} ${error.details || error.message}`.slice(0, 300));
}

/**
 * gRPC over one channel (one HTTP/2 connection multiplexing every call, as a gRPC client normally has), with the
 * SDK's generated codec for `lf.a2a.v1.A2AService`.
 */
export class GrpcBindingClient implements BindingClient {
  private readonly client: Client;
  private readonly metadata = new Metadata();

  constructor(target: BenchTarget) {
    this.client = new Client(target.grpcAddress, credentials.createInsecure());
    this.metadata.set('a2a-version', '1.0');
    this.metadata.set('x-bench-key', 'bench');
    for (const [name, value] of Object.entries(benchCredentialHeaders())) this.metadata.set(name, value);
  }

  async sendChecked(): Promise<string> {
    const bytes = await this.unary(A2AService.sendMessage, sendRequest(ECHO_COMMAND));
    const response = SendMessageResponse.toJSON(A2AService.sendMessage.responseDeserialize(bytes)) as Json;
    return checkCompletedEchoTask(response.task);
  }

  async send(): Promise<void> {
    await this.unary(A2AService.sendMessage, sendRequest(ECHO_COMMAND));
  }

  async getChecked(taskId: string): Promise<void> {
    const bytes = await this.unary(A2AService.getTask, GetTaskRequest.fromJSON({ id: taskId }));
    const task = Task.toJSON(A2AService.getTask.responseDeserialize(bytes)) as Json;
    if (checkCompletedEchoTask(task) !== taskId)
      throw new Error(`GetTask answered another task: ${JSON.stringify(task).slice(0, 200)}`);
  }

  async get(taskId: string): Promise<void> {
    await this.unary(A2AService.getTask, GetTaskRequest.fromJSON({ id: taskId }));
  }

  async streamChecked(chunks: number): Promise<number> {
    const events: Json[] = [];
    await this.serverStream(chunks, (bytes) => {
      events.push(StreamResponse.toJSON(A2AService.sendStreamingMessage.responseDeserialize(bytes)) as Json);
    });
    checkStreamEvents(events, chunks);
    return events.length;
  }

  async stream(chunks: number, expectedEvents: number): Promise<number> {
    let last: Buffer | undefined;
    let events = 0;
    const firstEventMs = await this.serverStream(chunks, (bytes) => {
      events++;
      last = bytes;
    });
    const final = last && (StreamResponse.toJSON(A2AService.sendStreamingMessage.responseDeserialize(last)) as Json);
    const state = final?.statusUpdate?.status?.state ?? final?.task?.status?.state;
    if (events !== expectedEvents || state !== 'TASK_STATE_COMPLETED') {
      throw new Error(
        `stream of ${events} events (expected ${expectedEvents}) ended with ${JSON.stringify(final).slice(0, 200)}`,
      );
    }
    return firstEventMs;
  }

  connect(): Promise<void> {
    return new Promise((resolve, reject) =>
      this.client.waitForReady(Date.now() + CONNECT_TIMEOUT_MS, (error) => (error ? reject(error) : resolve())),
    );
  }

  close(): void {
    this.client.close();
  }

  private unary<Request>(
    method: { path: string; requestSerialize: (value: Request) => Buffer },
    request: Request,
  ): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(
        method.path,
        method.requestSerialize,
        raw,
        request,
        this.metadata,
        { deadline: Date.now() + CALL_TIMEOUT_MS },
        (error, value) => (error ? reject(describe(error)) : resolve(value!)),
      );
    });
  }

  /** Calls SendStreamingMessage and reads it to the end; ms from the call to its first event. */
  private serverStream(chunks: number, onEvent: (bytes: Buffer) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      const started = performance.now();
      let firstEventMs = Number.NaN;
      const method = A2AService.sendStreamingMessage;
      const call: ClientReadableStream<Buffer> = this.client.makeServerStreamRequest(
        method.path,
        method.requestSerialize,
        raw,
        sendRequest(streamCommand(chunks)),
        this.metadata,
        { deadline: Date.now() + CALL_TIMEOUT_MS },
      );
      call.on('data', (bytes: Buffer) => {
        if (Number.isNaN(firstEventMs)) firstEventMs = performance.now() - started;
        onEvent(bytes);
      });
      call.on('error', (error: ServiceError) => reject(describe(error)));
      call.on('end', () => resolve(firstEventMs));
    });
  }
}
