import { randomUUID } from 'node:crypto';
import { PROTOCOL_VERSION } from '../a2a.constants.js';
import { ANONYMOUS_PRINCIPAL, type A2aCallContext } from '../context/call-context.js';
import { textOf } from '../task/message-text.js';
import type { Message } from '../protocol/a2a.types.js';
import { A2aTaskAuthorizations } from '../security/task-authorizations.js';
import type { SkillContext } from '../skills/skill-context.js';

/**
 * What a test may set; everything else gets a default (see {@link createSkillContext}). A skill with a typed input
 * (`SkillContext<FlightInput>`) needs its `input`: the engine would have validated one before calling it.
 */
export type SkillContextOverrides<TInput = unknown> = Partial<
  Omit<SkillContext<TInput>, 'input' | 'signal' | 'waitForAuthorization'>
> &
  (undefined extends TInput ? { input?: TInput } : { input: TInput });

/** A {@link SkillContext} for unit tests, with the controls the engine would otherwise hold. */
export type TestSkillContext<TInput = unknown> = SkillContext<TInput> & SkillContextControls;

/** What a test holds of a {@link TestSkillContext} that a skill does not see in a real one. */
export interface SkillContextControls {
  /** Its `abort()` does what CancelTask does to a running skill: `signal` fires, and a pending `waitForAuthorization` rejects. */
  readonly abortController: AbortController;
  /**
   * Hands `credential` to the skill's pending `waitForAuthorization()`, as the app's OAuth callback does with
   * `A2aTaskAuthorizations.provide`; false when the skill is not waiting.
   */
  provideAuthorization(credential: unknown): boolean;
  /** Whether the skill is waiting in `waitForAuthorization()`. */
  readonly awaitingAuthorization: boolean;
}

/**
 * A complete {@link SkillContext} for calling a skill's `handle()` without Nest, the engine or a store:
 *
 * ```ts
 * const context = createSkillContext({ text: 'weather in Lisbon' });
 * const events = await collectSkillEvents(skill.handle(context));
 * ```
 *
 * Defaults, as the engine would give them for a new task: a user message with one text part `text` (or `text` read
 * from the `message` given, as the engine does), fresh UUIDs for the task and context (or the `task`'s own, with its
 * history), the anonymous principal, tenant `''`, a JSON-RPC call context to match, no extensions, and attempt 1.
 * `waitForAuthorization` behaves as the engine's: it waits for {@link TestSkillContext.provideAuthorization}, rejects
 * when the context is aborted, and after `timeoutMs`.
 */
export function createSkillContext<TInput = unknown>(
  overrides: SkillContextOverrides<TInput> = {} as SkillContextOverrides<TInput>,
): TestSkillContext<TInput> {
  const message: Message = overrides.message ?? {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text: overrides.text ?? '' }],
  };
  const principal = overrides.principal ?? overrides.call?.principal ?? ANONYMOUS_PRINCIPAL;
  const tenant = overrides.tenant ?? overrides.call?.tenant ?? '';
  const call: A2aCallContext = overrides.call ?? {
    principal,
    tenant,
    binding: 'JSONRPC',
    version: PROTOCOL_VERSION,
    extensions: [],
  };
  const taskId = overrides.taskId ?? overrides.task?.id ?? randomUUID();
  const abortController = new AbortController();
  const authorizations = new A2aTaskAuthorizations();
  const context: SkillContext<unknown> & SkillContextControls = {
    ...overrides,
    message,
    text: overrides.text ?? textOf(message),
    taskId,
    contextId: overrides.contextId ?? overrides.task?.contextId ?? message.contextId ?? randomUUID(),
    history: overrides.history ?? overrides.task?.history ?? [],
    principal,
    tenant,
    call,
    extensions: overrides.extensions ?? [],
    attempt: overrides.attempt ?? 1,
    signal: abortController.signal,
    abortController,
    waitForAuthorization: <T>(options?: { timeoutMs?: number }) =>
      authorizations.wait(taskId, abortController.signal, options?.timeoutMs) as Promise<T>,
    provideAuthorization: (credential) => authorizations.provide(taskId, credential),
    get awaitingAuthorization() {
      return authorizations.isWaiting(taskId);
    },
  };
  // `input` is there whenever TInput requires it: the overrides' type asked for it.
  return context as TestSkillContext<TInput>;
}
