import { ForbiddenException, type ExecutionContext, type Type } from '@nestjs/common';
import { isObservable, lastValueFrom } from 'rxjs';
import type { RegisteredSkill } from './skill.registry.js';

/** The transport's view of the call, as the binding handed it to the app's guards: `'http'` (req, res) or `'rpc'`. */
export interface TransportArgs {
  readonly type: 'http' | 'rpc';
  readonly args: readonly unknown[];
}

/** Checked once a message is routed to a skill, before the skill runs: the engine calls it with the chosen skill. */
export type SkillGate = (skill: RegisteredSkill) => Promise<void>;

/**
 * The gate of a call's skill guards: the guards of `@UseGuards()` on the `@AgentSkill` class, run with the call's own
 * arguments and an ExecutionContext whose class is the skill's and handler its `handle`. A guard that returns false
 * gives ForbiddenException, as Nest's own guards do.
 */
export function skillGuardsGate(transport: TransportArgs): SkillGate {
  return async (skill) => {
    if (skill.guards.length === 0) return;
    const context = new SkillExecutionContext(transport, skill.handler.constructor as Type, skill.handler.handle);
    for (const guard of skill.guards) {
      const verdict = guard.canActivate(context);
      const allowed = isObservable(verdict) ? await lastValueFrom(verdict) : await verdict;
      if (!allowed) throw new ForbiddenException(`Skill "${skill.card.id}" refused this call`);
    }
  };
}

type HttpArgumentsHost = ReturnType<ExecutionContext['switchToHttp']>;
type RpcArgumentsHost = ReturnType<ExecutionContext['switchToRpc']>;
type WsArgumentsHost = ReturnType<ExecutionContext['switchToWs']>;

/** The ExecutionContext of a skill's guards: the call's arguments, the skill's class and `handle`. */
class SkillExecutionContext implements ExecutionContext {
  constructor(
    private readonly transport: TransportArgs,
    private readonly type: Type,
    private readonly handler: Function,
  ) {}

  getClass<T = unknown>(): Type<T> {
    return this.type as Type<T>;
  }

  getHandler(): Function {
    return this.handler;
  }

  getArgs<T extends unknown[] = unknown[]>(): T {
    return this.transport.args as unknown as T;
  }

  getArgByIndex<T = unknown>(index: number): T {
    return this.transport.args[index] as T;
  }

  getType<TContext extends string = string>(): TContext {
    return this.transport.type as TContext;
  }

  switchToHttp(): HttpArgumentsHost {
    const [request, response, next] = this.transport.args;
    return {
      getRequest: <T>() => request as T,
      getResponse: <T>() => response as T,
      getNext: <T>() => next as T,
    };
  }

  switchToRpc(): RpcArgumentsHost {
    const [data, context] = this.transport.args;
    return { getData: <T>() => data as T, getContext: <T>() => context as T };
  }

  switchToWs(): WsArgumentsHost {
    const [client, data] = this.transport.args;
    return { getClient: <T>() => client as T, getData: <T>() => data as T, getPattern: () => '' };
  }
}
