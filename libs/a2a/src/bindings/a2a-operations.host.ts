import { Inject, Injectable, UseGuards, UseInterceptors, type Type } from '@nestjs/common';
import type { Observable } from 'rxjs';
import type { A2aModuleExtras } from '../a2a-module.options.js';
import { A2A_INVOCATION, type A2aInvocation } from '../context/a2a-invocation.js';
import { CallContextFactory } from './call-context.factory.js';
import { A2aAuthGuard } from '../security/a2a-auth.guard.js';
import { A2aEngine } from '../engine/a2a.engine.js';
import { skillGateOf } from '../skills/skill-guards.js';
import { SkillRegistry } from '../skills/skill.registry.js';
import type { StreamResponse } from '../protocol/a2a.types.js';
import { A2A_OPERATIONS } from './a2a-operations.js';

/** What a streaming operation's handler returns: wrapped, so the pipeline hands the stream on rather than draining it. */
export interface StreamingResult {
  readonly events: Observable<StreamResponse>;
}

/** The host instance, whatever class `createA2aOperationsHost` made. */
export const A2A_OPERATIONS_HOST = Symbol('A2A_OPERATIONS_HOST');

/**
 * The class whose methods are the A2A operations as the app's guards and interceptors see them on the HTTP bindings:
 * `context.getClass()` is it, `context.getHandler().name` the operation (`sendMessage`, `getTask`, …), and the
 * arguments are the request and response. Each method takes the invocation the binding left on the request (the
 * decoded, validated request), makes the call context (the principal a guard set, else the resolver's), and runs the
 * engine. {@link A2aAuthGuard} (option `security`) runs first, then the module's `guards`. One class per module definition, so the module's own `guards` and `interceptors` apply to it alone.
 */
export function createA2aOperationsHost({ guards = [], interceptors = [] }: Pick<A2aModuleExtras, 'guards' | 'interceptors'>): Type {
  @Injectable()
  class A2aOperations {
    constructor(
      @Inject(A2aEngine) readonly engine: A2aEngine,
      @Inject(SkillRegistry) readonly skills: SkillRegistry,
      @Inject(CallContextFactory) readonly contexts: CallContextFactory,
    ) {}
  }
  for (const operation of A2A_OPERATIONS) {
    const handler = function (this: A2aOperations, carrier: { [A2A_INVOCATION]?: A2aInvocation }, response: unknown): Promise<object> | StreamingResult {
      const invocation = carrier[A2A_INVOCATION]!;
      const call = this.contexts.of(invocation, carrier);
      const gate = skillGateOf(this.skills, { type: 'http', args: [carrier, response] });
      return operation.streaming
        ? { events: operation.run(this.engine, invocation.request, call, gate) }
        : operation.run(this.engine, invocation.request, call, gate);
    };
    Object.defineProperty(handler, 'name', { value: operation.handlerName });
    Object.defineProperty(A2aOperations.prototype, operation.handlerName, { value: handler, writable: true, configurable: true, enumerable: false });
  }
  // The module's own guard first: the app's guards see the principal it found.
  UseGuards(A2aAuthGuard, ...guards)(A2aOperations);
  if (interceptors.length > 0) UseInterceptors(...interceptors)(A2aOperations);
  return A2aOperations;
}
