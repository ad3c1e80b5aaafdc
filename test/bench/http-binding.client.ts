import {
  getTaskRequest,
  looksSuccessful,
  payloadOf,
  sendMessageRequest,
  streamRequest,
  type HttpBinding,
  type WireRequest,
} from './a2a-wire.js';
import { checkCompletedEchoTask, checkStreamEvents } from './agent-behaviour.checks.js';
import type { BindingClient } from './binding-client.js';
import type { BenchTarget } from './driver-protocol.js';
import { callStream, callUnary, endpoint, type HttpEndpoint, type UnaryResponse } from './http-calls.js';

function describe(response: UnaryResponse): string {
  return `HTTP ${response.status}: ${response.body.slice(0, 200)}`;
}

/** JSON-RPC or HTTP+JSON over node:http, with a keep-alive pool of `concurrency` sockets. */
export class HttpBindingClient implements BindingClient {
  private readonly to: HttpEndpoint;

  constructor(
    private readonly target: BenchTarget,
    private readonly binding: HttpBinding,
    concurrency: number,
  ) {
    this.to = endpoint(target.origin, concurrency);
  }

  async sendChecked(): Promise<string> {
    return checkCompletedEchoTask((await this.payload(sendMessageRequest(this.target, this.binding))).task);
  }

  send(): Promise<void> {
    return this.expectOk(sendMessageRequest(this.target, this.binding));
  }

  async getChecked(taskId: string): Promise<void> {
    const task = await this.payload(getTaskRequest(this.target, this.binding, taskId));
    if (checkCompletedEchoTask(task) !== taskId)
      throw new Error(`GetTask answered another task: ${JSON.stringify(task).slice(0, 200)}`);
  }

  get(taskId: string): Promise<void> {
    return this.expectOk(getTaskRequest(this.target, this.binding, taskId));
  }

  async streamChecked(chunks: number): Promise<number> {
    const outcome = await callStream(this.to, streamRequest(this.target, this.binding, chunks), true);
    if (outcome.status !== 200 || outcome.events === 0)
      throw new Error(`HTTP ${outcome.status}: ${outcome.body.slice(0, 200)}`);
    checkStreamEvents(
      outcome.all.map((data) => payloadOf(this.binding, data)),
      chunks,
    );
    return outcome.events;
  }

  async stream(chunks: number, expectedEvents: number): Promise<number> {
    const outcome = await callStream(this.to, streamRequest(this.target, this.binding, chunks));
    if (outcome.status !== 200 || outcome.events === 0)
      throw new Error(`HTTP ${outcome.status}: ${outcome.body.slice(0, 200)}`);
    if (outcome.events !== expectedEvents || !outcome.lastData.includes('TASK_STATE_COMPLETED')) {
      throw new Error(
        `stream of ${outcome.events} events (expected ${expectedEvents}) ended with ${outcome.lastData.slice(0, 200)}`,
      );
    }
    return outcome.firstEventMs;
  }

  async connect(connections: number): Promise<void> {
    const card: WireRequest = { method: 'GET', path: '/.well-known/agent-card.json', headers: {} };
    await Promise.all(Array.from({ length: connections }, () => callUnary(this.to, card)));
  }

  close(): void {
    this.to.agent.destroy();
  }

  private async payload(request: WireRequest) {
    const response = await callUnary(this.to, request);
    if (response.status !== 200) throw new Error(describe(response));
    return payloadOf(this.binding, response.body);
  }

  private async expectOk(request: WireRequest): Promise<void> {
    const response = await callUnary(this.to, request);
    if (response.status !== 200 || !looksSuccessful(this.binding, response.body)) throw new Error(describe(response));
  }
}
