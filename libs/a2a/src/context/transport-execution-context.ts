import type { ExecutionContext, Type } from '@nestjs/common';

/** The transport's view of the call, as the binding handed it to the app's guards: `'http'` (req, res) or `'rpc'`. */
export interface TransportArgs {
  readonly type: 'http' | 'rpc';
  readonly args: readonly unknown[];
}

type HttpArgumentsHost = ReturnType<ExecutionContext['switchToHttp']>;
type RpcArgumentsHost = ReturnType<ExecutionContext['switchToRpc']>;
type WsArgumentsHost = ReturnType<ExecutionContext['switchToWs']>;

/** An ExecutionContext over a call's own arguments, for the guards and filters the module runs itself. */
export class TransportExecutionContext implements ExecutionContext {
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
