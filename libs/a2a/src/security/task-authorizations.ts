import { Injectable } from '@nestjs/common';
import { A2aError } from '../errors/a2a.error.js';
import { AuthorizationAlreadyAwaitedError, AuthorizationTimeoutError } from './task-authorization.errors.js';

interface Waiter {
  resolve(credential: unknown): void;
}

/**
 * In-task authorization (spec §7.6): a skill that needs a credential of its own (a user's consent, a token for a
 * downstream API) emits `requireAuth(…)` and awaits `context.waitForAuthorization()`; the app hands the credential over
 * out of band, typically from its OAuth callback route, with {@link provide}. The task stays AUTH_REQUIRED with its
 * streams open meanwhile (spec §7.6.1). The credential goes to that one waiting skill run only: it authorizes nothing
 * else, and no later message (§7.6.4).
 */
@Injectable()
export class A2aTaskAuthorizations {
  private readonly waiters = new Map<string, Waiter>();

  /**
   * Resumes the skill run of `taskId` waiting for a credential; false when none waits (the task is unknown, done, or
   * its skill did not ask). Check first that the caller of your callback may resume this task.
   */
  provide(taskId: string, credential: unknown): boolean {
    const waiter = this.waiters.get(taskId);
    if (!waiter) return false;
    this.waiters.delete(taskId);
    waiter.resolve(credential);
    return true;
  }

  /** Whether a skill run of `taskId` is waiting for a credential. */
  isWaiting(taskId: string): boolean {
    return this.waiters.has(taskId);
  }

  /** The engine's side: one waiter per task, ended by the credential, the task's cancelation, or the timeout. */
  wait(taskId: string, signal: AbortSignal, timeoutMs?: number): Promise<unknown> {
    if (this.waiters.has(taskId))
      return Promise.reject(
        new AuthorizationAlreadyAwaitedError(`The skill of task ${taskId} is already waiting for a credential`),
      );
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = () => {
        if (this.waiters.get(taskId) === waiter) this.waiters.delete(taskId);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        settle();
        reject(new A2aError('TaskNotCancelable', `Task ${taskId} was canceled while waiting for a credential`));
      };
      const waiter: Waiter = {
        resolve: (credential) => {
          settle();
          resolve(credential);
        },
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          settle();
          reject(new AuthorizationTimeoutError(`No credential arrived for task ${taskId} within ${timeoutMs} ms`));
        }, timeoutMs);
        timer.unref();
      }
      this.waiters.set(taskId, waiter);
    });
  }
}
