/**
 * The reference point with a database: sdk-server.ts's server (DefaultRequestHandler, its express handlers and its gRPC
 * service, the same `echo <text>` / `stream <n>` executor) with the SDK's own `DatabaseTaskStore`
 * (`@a2a-js/sdk/server/database`) instead of `InMemoryTaskStore`, on the same PostgreSQL as ours. The orchestrator
 * makes the schema and the SDK's `tasks` table in it with the SDK's migration CLI, and drops them after the server
 * stops (bench-database.ts); this server's connections find the table through `search_path`.
 *
 * The store takes a Kysely instance (`kysely`, an optional peer dependency of the SDK's database entry point, a
 * devDependency here) with the PostgreSQL dialect over a `pg` pool.
 */
import './memory-probe.js';
import { randomUUID } from 'node:crypto';
import express from 'express';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { AgentCard, TaskState, type Part } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from '@a2a-js/sdk/server/grpc';
import { benchDatabaseEnv, searchPathOption } from './bench-database.js';
import { SERVER_LAYOUTS } from './server-layouts.js';

const { jsonRpcPath, restPrefix, label } = SERVER_LAYOUTS['sdk-pg'];
const database = benchDatabaseEnv(label);

// pg's default pool size (10), as our PostgreSQL store's pool has.
const pool = new pg.Pool({ connectionString: database.BENCH_POSTGRES_URL, options: searchPathOption(database.BENCH_POSTGRES_SCHEMA) });
// Without a listener an idle connection's error would crash the process; the bench then sees failing requests.
pool.on('error', (error) => console.error(`idle PostgreSQL connection failed: ${error.message}`));
const taskStore = new DatabaseTaskStore(new Kysely({ dialect: new PostgresDialect({ pool }) }));

const port = Number(process.env.PORT ?? 3002);
const base = `http://127.0.0.1:${port}`;
const grpcAddress = `127.0.0.1:${Number(process.env.GRPC_PORT ?? 50052)}`;

const card = AgentCard.fromJSON({
  name: 'SDK bench agent (PostgreSQL)',
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

const textPart = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' });

/** sdk-server.ts's executor, event for event (that file starts its server on import, so it cannot be shared). */
class BenchExecutor implements AgentExecutor {
  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = context;
    const status = (state: TaskState) =>
      AgentEvent.statusUpdate({ taskId, contextId, metadata: undefined, status: { state, message: undefined, timestamp: new Date().toISOString() } });
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
