import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import { scopeOf, type A2aCallContext, type TaskScope } from '../context/call-context.js';
import { A2aError } from '../errors/a2a.error.js';
import type {
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
} from '../protocol/a2a.types.js';
import { A2A_TASK_STORE, type TaskStore } from '../store/task.store.js';
import type { StoredPushConfig, TaskPushStore } from '../store/task-push.store.js';
import { A2aSecurityPolicy } from '../security/a2a-security.policy.js';
import { PushAddressPolicy } from './push-address.policy.js';
import { pushConfigViolations } from './push-config.rules.js';
import { InvalidPushOptionsError } from './push.errors.js';
import { PushSecretsSeal } from './push-secrets.seal.js';

const DEFAULT_MAX_CONFIGS_PER_TASK = 10;
const DEFAULT_LIST_PAGE_SIZE = 100;
const INLINE_CONFIG_FIELD = 'configuration.taskPushNotificationConfig';

/**
 * The four push-config operations (spec §3.1.7–§3.1.10, §3.3.4) and SendMessage's inline config (spec §3.2.2): every
 * config is checked against the webhook rules (SSRF, header-safe secrets) before it is stored, scoped to its task's
 * owner, capped per task, and kept with its secrets sealed. Without option `push`, each answers
 * PushNotificationNotSupported. Anonymous callers get none of them while option `security.anonymousCallers` isolates
 * them, and never see a stored secret.
 */
@Injectable()
export class A2aPushConfigs implements OnApplicationBootstrap {
  private readonly logger = new Logger('A2aPush');
  readonly enabled: boolean;
  private readonly policy?: PushAddressPolicy;
  private readonly maxPerTask: number;
  readonly seal: PushSecretsSeal;

  constructor(
    @Inject(A2A_TASK_STORE) private readonly store: TaskStore,
    @Inject(A2A_MODULE_OPTIONS) options: A2aModuleOptions,
    private readonly security: A2aSecurityPolicy,
  ) {
    const push = options.push;
    this.enabled = push !== undefined;
    this.maxPerTask = push?.maxConfigsPerTask ?? DEFAULT_MAX_CONFIGS_PER_TASK;
    this.policy = push && new PushAddressPolicy(push);
    this.seal = new PushSecretsSeal(push?.secrets);
    if (push && !store.push)
      throw new InvalidPushOptionsError(
        'Option push needs a task store with push support (TaskStore.push): the in-memory and PostgreSQL stores have it.',
      );
  }

  onApplicationBootstrap(): void {
    // A store with leases outlives the process (a database): secrets would sit there in clear.
    if (this.enabled && this.store.leases && !this.seal.encrypts) {
      this.logger.warn(
        'Push tokens and credentials are stored unencrypted: set option push.secrets to encrypt them at rest',
      );
    }
  }

  /** CreateTaskPushNotificationConfig: the config as stored, with its id (the client's, or a new one). */
  async create(request: TaskPushNotificationConfig, call: A2aCallContext): Promise<TaskPushNotificationConfig> {
    const push = this.pushStore();
    this.security.requireOwnerFor('CreateTaskPushNotificationConfig', call.principal);
    const taskId = request.taskId!;
    const scope = scopeOf(call);
    await this.requireTask(taskId, scope);
    const violations = pushConfigViolations(request, this.policy!);
    if (violations.length > 0) throw A2aError.invalidParams(violations);
    return this.save(push, request, taskId, scope, 'taskId');
  }

  /** SendMessage's `configuration.taskPushNotificationConfig`, checked before anything of the message is stored. */
  checkInline(config: TaskPushNotificationConfig, call: A2aCallContext): void {
    this.pushStore();
    this.security.requireOwnerFor('SendMessage', call.principal);
    const violations = pushConfigViolations(config, this.policy!, INLINE_CONFIG_FIELD);
    if (violations.length > 0) throw A2aError.invalidParams(violations);
  }

  /**
   * Saves a checked inline config for `taskId` before the skill runs, so the task's first event already goes to it
   * (for a new task, the task itself). Returns its id.
   */
  async registerInline(config: TaskPushNotificationConfig, taskId: string, call: A2aCallContext): Promise<string> {
    return (await this.save(this.pushStore(), config, taskId, scopeOf(call), `${INLINE_CONFIG_FIELD}.taskId`)).id!;
  }

  /** An inline config whose message got a direct reply, not a task: nothing will ever be delivered to it. */
  async dropInline(taskId: string, id: string, scope: TaskScope): Promise<void> {
    await this.store.push?.deleteConfig(taskId, id, scope);
  }

  async get(request: GetTaskPushNotificationConfigRequest, call: A2aCallContext): Promise<TaskPushNotificationConfig> {
    const push = this.pushStore();
    this.security.requireOwnerFor('GetTaskPushNotificationConfig', call.principal);
    const scope = scopeOf(call);
    await this.requireTask(request.taskId, scope);
    const stored = await push.getConfig(request.taskId, request.id, scope);
    // A missing config is TaskNotFound (spec §3.1.8).
    if (!stored)
      throw new A2aError('TaskNotFound', `Task ${request.taskId} has no push notification config ${request.id}`, {
        taskId: request.taskId,
      });
    return this.view(stored, call);
  }

  async list(
    request: ListTaskPushNotificationConfigsRequest,
    call: A2aCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const push = this.pushStore();
    this.security.requireOwnerFor('ListTaskPushNotificationConfigs', call.principal);
    const scope = scopeOf(call);
    await this.requireTask(request.taskId, scope);
    const all = await push.listConfigs(request.taskId, scope);
    const start = request.pageToken ? offsetOf(request.pageToken) : 0;
    const size = request.pageSize || DEFAULT_LIST_PAGE_SIZE;
    const page = all.slice(start, start + size);
    const next = start + size < all.length ? Buffer.from(String(start + size)).toString('base64url') : '';
    return { configs: page.map((stored) => this.view(stored, call)), nextPageToken: next };
  }

  /** Idempotent (spec §3.1.10): deleting a config that is gone is no error; deliveries not yet made to it are dropped. */
  async delete(request: DeleteTaskPushNotificationConfigRequest, call: A2aCallContext): Promise<Record<string, never>> {
    const push = this.pushStore();
    this.security.requireOwnerFor('DeleteTaskPushNotificationConfig', call.principal);
    const scope = scopeOf(call);
    await this.requireTask(request.taskId, scope);
    await push.deleteConfig(request.taskId, request.id, scope);
    return {};
  }

  private async save(
    push: TaskPushStore,
    request: TaskPushNotificationConfig,
    taskId: string,
    scope: TaskScope,
    taskField: string,
  ): Promise<TaskPushNotificationConfig> {
    if (request.taskId && request.taskId !== taskId) {
      throw A2aError.invalidParams([
        { field: taskField, description: `Must be empty or ${taskId}, the task this config is for` },
      ]);
    }
    const id = request.id || randomUUID();
    const config: StoredPushConfig = { taskId, id, scope, url: request.url, secrets: '' };
    config.secrets = this.seal.seal(
      {
        ...(request.token ? { token: request.token } : {}),
        ...(request.authentication ? { authentication: request.authentication } : {}),
      },
      config,
    );
    if (!(await push.saveConfig(config, this.maxPerTask))) {
      throw A2aError.invalidParams([
        {
          field: 'id',
          description: `Task ${taskId} has ${this.maxPerTask} push notification configs already, the most it may have`,
        },
      ]);
    }
    return {
      ...(request.tenant ? { tenant: request.tenant } : {}),
      id,
      taskId,
      url: request.url,
      ...(request.token ? { token: request.token } : {}),
      ...(request.authentication ? { authentication: request.authentication } : {}),
    };
  }

  /**
   * The config as its owner sees it: with its secrets (they are the owner's own), never anyone else's (scoped reads).
   * An anonymous owner is anyone: it gets them redacted, the scheme of `authentication` kept.
   */
  private view(stored: StoredPushConfig, call: A2aCallContext): TaskPushNotificationConfig {
    const opened = this.seal.open(stored);
    const { token, authentication } = call.principal.authenticated
      ? opened
      : { token: undefined, authentication: opened.authentication && { scheme: opened.authentication.scheme } };
    return {
      ...(call.tenant ? { tenant: call.tenant } : {}),
      id: stored.id,
      taskId: stored.taskId,
      url: stored.url,
      ...(token ? { token } : {}),
      ...(authentication ? { authentication } : {}),
    };
  }

  /** spec §13.1: the task is looked up in the caller's scope first, so another owner's task and its configs do not exist. */
  private async requireTask(taskId: string, scope: TaskScope): Promise<void> {
    if (!(await this.store.get(taskId, scope))) throw A2aError.taskNotFound(taskId);
  }

  /** spec §3.3.4: every push-config operation, and an inline config, needs option `push`. */
  private pushStore(): TaskPushStore {
    if (!this.enabled || !this.store.push) throw new A2aError('PushNotificationNotSupported');
    return this.store.push;
  }
}

function offsetOf(token: string): number {
  const offset = Number(Buffer.from(token, 'base64url').toString());
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw A2aError.invalidParams([{ field: 'pageToken', description: 'pageToken is not a token this server issued' }]);
  return offset;
}
