import { HttpException, Inject, Injectable, type ExceptionFilter, type OnModuleInit, type Type } from '@nestjs/common';
import { FILTER_CATCH_EXCEPTIONS } from '@nestjs/common/constants.js';
import { ModuleRef } from '@nestjs/core';
import { A2A_MODULE_EXTRAS } from '../../a2a-module-definition.js';
import type { A2aModuleExtras } from '../../a2a-module.options.js';
import { TransportExecutionContext, type TransportArgs } from '../../context/transport-execution-context.js';
import { A2aError } from '../../errors/a2a.error.js';

interface CatchingFilter {
  readonly filter: ExceptionFilter;
  /** What its `@Catch()` names; empty: everything. */
  readonly catches: readonly Type[];
}

/**
 * The exception filters given to the module (option `filters`), for the HTTP bindings (on gRPC, Nest applies them to
 * the binding's controller). They get the errors that are not the protocol's own, A2aErrors and HttpExceptions
 * being answers the binding gives in its shape: the first filter whose `@Catch()` matches answers the request, as a
 * Nest filter answers any route; an error no filter takes is answered INTERNAL in the binding's shape.
 */
@Injectable()
export class A2aExceptionFilters implements OnModuleInit {
  private filters: CatchingFilter[] = [];

  constructor(
    @Inject(A2A_MODULE_EXTRAS) private readonly extras: Pick<A2aModuleExtras, 'filters'>,
    private readonly moduleRef: ModuleRef,
  ) {}

  get any(): boolean {
    return this.filters.length > 0;
  }

  async onModuleInit(): Promise<void> {
    const declared = this.extras.filters ?? [];
    const instances = await Promise.all(
      declared.map((filter) =>
        typeof filter === 'function' ? this.moduleRef.create(filter as Type<ExceptionFilter>) : filter,
      ),
    );
    this.filters = instances.map((filter) => ({
      filter,
      catches: (Reflect.getMetadata(FILTER_CATCH_EXCEPTIONS, filter.constructor) as Type[] | undefined) ?? [],
    }));
  }

  /** Whether a filter took `error` (and answered); false for protocol errors and for errors no filter catches. */
  handle(error: unknown, transport: TransportArgs, handlerClass: Type, handler: Function): boolean {
    if (error instanceof A2aError || error instanceof HttpException) return false;
    const match = this.filters.find(
      ({ catches }) => catches.length === 0 || catches.some((type) => error instanceof type),
    );
    if (!match) return false;
    match.filter.catch(error, new TransportExecutionContext(transport, handlerClass, handler));
    return true;
  }
}
