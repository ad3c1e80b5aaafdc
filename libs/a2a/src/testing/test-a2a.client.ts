import type { INestApplicationContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { defer, lastValueFrom, toArray, type Observable } from 'rxjs';
import { PROTOCOL_VERSION, SKILL_ID_METADATA_KEY } from '../a2a.constants.js';
import { OPERATIONS_BY_NAME } from '../bindings/a2a-operations.js';
import type { A2aOperationName } from '../context/a2a-invocation.js';
import { ANONYMOUS_PRINCIPAL, type A2aCallContext, type A2aPrincipal } from '../context/call-context.js';
import { A2aEngine } from '../engine/a2a.engine.js';
import { seqOf } from '../engine/stream-seq.js';
import type {
  AgentCard,
  JsonObject,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  ProtocolBinding,
  SendMessageConfiguration,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from '../protocol/a2a.types.js';

/** Who calls, and how: the call context every operation of a {@link TestA2aClient} runs with. */
export interface TestA2aCaller {
  /** A principal, or the id of an authenticated one. Default: the anonymous principal. */
  principal?: A2aPrincipal | string;
  /** Default `''`. */
  tenant?: string;
  /** What `call.binding` says to skills and the engine. Default `JSONRPC`. */
  binding?: ProtocolBinding;
  /** Extension URIs the caller activates. Default none. */
  extensions?: readonly string[];
}

/** A user message: text, or a Message whose `messageId` (default a fresh UUID) and `role` (`ROLE_USER`) may be left out. */
export type TestMessageInput =
  string | (Omit<Message, 'messageId' | 'role'> & Partial<Pick<Message, 'messageId' | 'role'>>);

/** How a test message is sent: as a follow-up, to a named skill, with a configuration. */
export interface TestSendOptions {
  /** A follow-up: the task the message continues. */
  taskId?: string;
  contextId?: string;
  /** Asks for this skill by id (`metadata["nestjs-a2a/skillId"]` on the message), past the router. */
  skillId?: string;
  configuration?: SendMessageConfiguration;
  /** The request's metadata (not the message's). */
  metadata?: JsonObject;
}

/** The answer of each unary operation, for {@link TestA2aClient.request}. */
export interface TestA2aResults {
  SendMessage: SendMessageResponse;
  GetTask: Task;
  ListTasks: ListTasksResponse;
  CancelTask: Task;
  CreateTaskPushNotificationConfig: TaskPushNotificationConfig;
  GetTaskPushNotificationConfig: TaskPushNotificationConfig;
  ListTaskPushNotificationConfigs: ListTaskPushNotificationConfigsResponse;
  DeleteTaskPushNotificationConfig: Record<string, never>;
  GetExtendedAgentCard: AgentCard;
}

/** The operations that answer with a stream, which {@link TestA2aClient.request} returns as an Observable. */
export type StreamingOperationName = Exclude<A2aOperationName, keyof TestA2aResults>;

/**
 * Drives an A2A module in-process, without sockets: each call is validated by the validators every binding uses (a
 * malformed request gets the same InvalidParams `A2aError`) and run by the module's `A2aEngine` with the call context
 * of the caller the test chose. Errors are the engine's own: `A2aError`s for protocol errors (the bindings would map
 * them to their wire format).
 *
 * ```ts
 * const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
 * await moduleRef.init(); // or an INestApplication after init()
 * const client = TestA2aClient.for(moduleRef, { principal: 'alice' });
 * const { task } = await client.sendForTask('echo hello');
 * expectStates(await client.streamAll('stream 3'), ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
 * ```
 *
 * What sits in front of the engine is not run: the app's and the module's guards, interceptors and filters, security
 * schemes and tenant policy, and skills' own guards. The principal and tenant are whatever the test says; test the
 * pipeline over a binding.
 */
export class TestA2aClient {
  private constructor(
    private readonly engine: A2aEngine,
    /** The call context of every operation. */
    readonly call: A2aCallContext,
  ) {}

  /** A client of the A2A module in `app` (a TestingModule or an INestApplication, once `init()` has run). */
  static for(app: INestApplicationContext, caller: TestA2aCaller = {}): TestA2aClient {
    return new TestA2aClient(app.get(A2aEngine, { strict: false }), callContextOf(caller));
  }

  /** The same module, called by someone else (tenant, binding and extensions are kept unless given). */
  as(principal: A2aPrincipal | string, caller: Omit<TestA2aCaller, 'principal'> = {}): TestA2aClient {
    const { tenant, binding, extensions } = this.call;
    return new TestA2aClient(this.engine, callContextOf({ tenant, binding, extensions, ...caller, principal }));
  }

  /** SendMessage: resolves when the task is terminal or interrupted (unless `returnImmediately`), or with a direct reply. */
  send(input: TestMessageInput, options: TestSendOptions = {}): Promise<SendMessageResponse> {
    return this.request('SendMessage', sendRequestOf(input, options));
  }

  /** SendMessage, for a test that expects a task: rejects when the agent answered with a message. */
  async sendForTask(input: TestMessageInput, options: TestSendOptions = {}): Promise<{ task: Task }> {
    const response = await this.send(input, options);
    if (!('task' in response)) throw new Error(`Expected a task, got a message: ${JSON.stringify(response.message)}`);
    return response;
  }

  /** SendStreamingMessage: the task, then its events, completing when the task is terminal or interrupted. */
  stream(input: TestMessageInput, options: TestSendOptions = {}): Observable<StreamResponse> {
    return this.request('SendStreamingMessage', sendRequestOf(input, options));
  }

  /** SendStreamingMessage, read to its end. */
  streamAll(input: TestMessageInput, options: TestSendOptions = {}): Promise<StreamResponse[]> {
    return lastValueFrom(this.stream(input, options).pipe(toArray()));
  }

  /** GetTask: the task, with at most `historyLength` messages of its history. */
  getTask(id: string, options: { historyLength?: number } = {}): Promise<Task> {
    return this.request('GetTask', { id, ...options });
  }

  /** ListTasks: one page of the caller's tasks. */
  listTasks(request: Omit<ListTasksRequest, 'tenant'> = {}): Promise<ListTasksResponse> {
    return this.request('ListTasks', request);
  }

  /** CancelTask: the task as the cancel left it. */
  cancel(id: string, metadata?: JsonObject): Promise<Task> {
    return this.request('CancelTask', metadata ? { id, metadata } : { id });
  }

  /**
   * SubscribeToTask: the task, then its events until it is terminal. With `lastEventId` (the `seq` of the last frame
   * read, as an SSE client sends `Last-Event-ID`), only what came after it.
   */
  subscribe(id: string, options: { lastEventId?: string } = {}): Observable<StreamResponse> {
    const call = options.lastEventId === undefined ? this.call : { ...this.call, lastEventId: options.lastEventId };
    return defer(() => run(this.engine, call, 'SubscribeToTask', { id }) as Observable<StreamResponse>);
  }

  /** SubscribeToTask, read to its end: only for a task that will end. */
  subscribeAll(id: string, options: { lastEventId?: string } = {}): Promise<StreamResponse[]> {
    return lastValueFrom(this.subscribe(id, options).pipe(toArray()));
  }

  /**
   * Any operation with a request as a client would send it (ProtoJSON, unchecked): for malformed input, push configs
   * and the extended card. Validation errors reject (or error the stream) as the engine's own errors do.
   */
  request<Name extends keyof TestA2aResults>(operation: Name, request: unknown): Promise<TestA2aResults[Name]>;
  request(operation: StreamingOperationName, request: unknown): Observable<StreamResponse>;
  request(operation: A2aOperationName, request: unknown): Promise<unknown> | Observable<StreamResponse> {
    const streaming = OPERATIONS_BY_NAME.get(operation)?.streaming;
    if (streaming) return defer(() => run(this.engine, this.call, operation, request) as Observable<StreamResponse>);
    return Promise.resolve().then(() => run(this.engine, this.call, operation, request));
  }
}

/**
 * The event id of a stream frame: what the SSE bindings write as its `id:`, and what a client resuming after it sends
 * as `Last-Event-ID` (`subscribe(taskId, { lastEventId })`). Undefined for a direct reply.
 */
export function eventIdOf(response: StreamResponse): string | undefined {
  return seqOf(response)?.toString();
}

/** Validates `request` as the bindings do, then runs it; throws the validator's or the engine's error. */
function run(
  engine: A2aEngine,
  call: A2aCallContext,
  name: A2aOperationName,
  request: unknown,
): Promise<object> | Observable<StreamResponse> {
  const operation = OPERATIONS_BY_NAME.get(name);
  if (!operation) throw new Error(`No A2A operation is named ${name}`);
  return operation.run(engine, operation.validate(request, engine.validationLimits), call);
}

function callContextOf({
  principal = ANONYMOUS_PRINCIPAL,
  tenant = '',
  binding = 'JSONRPC',
  extensions = [],
}: TestA2aCaller): A2aCallContext {
  return {
    principal: typeof principal === 'string' ? { id: principal, subject: principal, authenticated: true } : principal,
    tenant,
    binding,
    version: PROTOCOL_VERSION,
    extensions,
  };
}

function sendRequestOf(
  input: TestMessageInput,
  { taskId, contextId, skillId, configuration, metadata }: TestSendOptions,
): Record<string, unknown> {
  const given = typeof input === 'string' ? { parts: [{ text: input }] } : input;
  const message: Record<string, unknown> = { messageId: randomUUID(), role: 'ROLE_USER', ...given };
  if (taskId !== undefined) message.taskId = taskId;
  if (contextId !== undefined) message.contextId = contextId;
  if (skillId !== undefined) message.metadata = { ...(given.metadata ?? {}), [SKILL_ID_METADATA_KEY]: skillId };
  return { message, ...(configuration ? { configuration } : {}), ...(metadata ? { metadata } : {}) };
}
