import { Injectable, UseGuards, type Type } from '@nestjs/common';
import type { A2aModuleExtras } from '../a2a-module.options.js';
import { A2aAuthGuard } from '../security/a2a-auth.guard.js';

/** The host instance, whatever class `createInspectorPageHost` made. */
export const A2A_INSPECTOR_HOST = Symbol('A2A_INSPECTOR_HOST');

/**
 * What the guards of the inspector's files run before: `context.getHandler().name` is `inspectorPage`, and
 * `a2aInvocationOf(context)` a GetExtendedAgentCard call (the page reads the agent as that operation does), so the
 * guards written for the operations decide for the page as well.
 */
@Injectable()
export class InspectorPageHandlers {
  /** Nothing to do once the guards let the request through: the route writes the file itself. */
  inspectorPage(): boolean {
    return true;
  }
}

/**
 * A host class of its own carrying the same guards as the operations' host (the module's own first, then option
 * `guards`), so that Nest's scanner registers them for it and the app's global guards join them.
 */
export function createInspectorPageHost({ guards = [] }: Pick<A2aModuleExtras, 'guards'>): Type {
  @Injectable()
  class A2aInspectorPage extends InspectorPageHandlers {}
  UseGuards(A2aAuthGuard, ...guards)(A2aInspectorPage);
  return A2aInspectorPage;
}
