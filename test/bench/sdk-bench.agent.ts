/**
 * The reference agent the bench compares with: `@a2a-js/sdk`'s documented setup (DefaultRequestHandler, its express
 * handlers and its gRPC service) with the subset of the conformance agent the bench drives, `echo <text>` and
 * `stream <n>`, over the task store it is given.
 */
import { randomUUID } from 'node:crypto';
import express from 'express';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { AgentCard, TaskState, type Part } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from '@a2a-js/sdk/server/grpc';
import type { ServerLayout } from './server-layouts.js';

const textPart = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: '',
});

class BenchExecutor implements AgentExecutor {
  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = context;
    const status = (state: TaskState) =>
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        metadata: undefined,
        status: { state, message: undefined, timestamp: new Date().toISOString() },
      });
    const artifact = (artifactId: string, name: string, text: string, append: boolean, lastChunk: boolean) =>
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        append,
        lastChunk,
        metadata: undefined,
        artifact: { artifactId, name, description: '', parts: [textPart(text)], metadata: undefined, extensions: [] },
      });

    const first = context.userMessage.parts.find((part) => part.content?.$case === 'text')?.content;
    const text = first?.$case === 'text' ? first.value : '';
    const [, command = '', argument = ''] = /^\s*(\S+)(?:\s+([\s\S]*))?$/.exec(text) ?? [];

    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [context.userMessage],
        metadata: undefined,
      }),
    );
    bus.publish(status(TaskState.TASK_STATE_WORKING));
    if (command === 'stream') {
      const chunks = Math.min(Math.max(Number.parseInt(argument, 10) || 3, 1), 1000);
      const artifactId = randomUUID();
      for (let i = 1; i <= chunks; i++) bus.publish(artifact(artifactId, 'stream', `chunk ${i}`, i > 1, i === chunks));
    } else {
      bus.publish(artifact(randomUUID(), 'echo', argument, false, true));
    }
    bus.publish(status(TaskState.TASK_STATE_COMPLETED));
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        metadata: undefined,
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
      }),
    );
    bus.finished();
  }
}

/** Serves the agent on PORT (JSON-RPC and HTTP+JSON where `layout` says) and GRPC_PORT, as the orchestrator set them. */
export function serveSdkBenchAgent(name: string, layout: ServerLayout, taskStore: TaskStore): void {
  const { jsonRpcPath, restPrefix } = layout;
  const port = Number(process.env.PORT ?? 3002);
  const base = `http://127.0.0.1:${port}`;
  const grpcAddress = `127.0.0.1:${Number(process.env.GRPC_PORT ?? 50052)}`;

  const card = AgentCard.fromJSON({
    name,
    description: 'echo <text> and stream <n>, as the conformance agent does them',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${base}${jsonRpcPath}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${base}${restPrefix}`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: grpcAddress, protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'conformance', name: 'Conformance', description: 'echo <text>, stream <n>', tags: ['test'] }],
  });

  const requestHandler = new DefaultRequestHandler(card, taskStore, new BenchExecutor());
  const app = express();
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler }));
  app.use(jsonRpcPath, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use(restPrefix, restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.listen(port, '127.0.0.1');

  const grpcServer = new Server();
  grpcServer.addService(A2AService, grpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication }));
  grpcServer.bindAsync(grpcAddress, ServerCredentials.createInsecure(), (error) => {
    if (error) throw error;
  });
}
