import { HttpException, Inject, Injectable, Logger } from '@nestjs/common';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import type { A2aInvocation } from '../context/a2a-invocation.js';
import { A2aError } from './a2a.error.js';

/** Hands unexpected errors to the app's `onUnexpectedError` hook (error reporting), after the binding has answered. */
@Injectable()
export class UnexpectedErrorReporter {
  private readonly logger = new Logger('A2aErrors');
  private readonly hook: A2aModuleOptions['onUnexpectedError'];

  constructor(@Inject(A2A_MODULE_OPTIONS) options: A2aModuleOptions) {
    this.hook = options.onUnexpectedError;
  }

  /** Protocol errors and HttpExceptions are answers, not failures: only anything else reaches the hook. */
  report(error: unknown, invocation?: A2aInvocation): void {
    if (!this.hook || error instanceof A2aError || error instanceof HttpException) return;
    try {
      this.hook(error, invocation);
    } catch (hookError) {
      this.logger.error('onUnexpectedError threw', hookError instanceof Error ? hookError.stack : String(hookError));
    }
  }
}
