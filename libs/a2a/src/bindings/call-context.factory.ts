import { Inject, Injectable } from '@nestjs/common';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import { A2aError } from '../errors/a2a.error.js';
import { passedAuthGuard } from '../security/a2a-auth.guard.js';
import { A2aSecurityPolicy } from '../security/a2a-security.policy.js';
import type { A2aInvocation } from '../context/a2a-invocation.js';
import { ANONYMOUS_PRINCIPAL, type A2aCallContext } from '../context/call-context.js';
import { userPropertyPrincipal, type A2aPrincipalResolver } from '../context/principal.resolver.js';

/** Makes the call context of an operation on any binding, once the pipeline let the call through. */
@Injectable()
export class CallContextFactory {
  private readonly resolvePrincipal: A2aPrincipalResolver;

  constructor(
    @Inject(A2A_MODULE_OPTIONS) options: A2aModuleOptions,
    private readonly security: A2aSecurityPolicy,
  ) {
    this.resolvePrincipal = options.principalResolver ?? userPropertyPrincipal;
  }

  /**
   * `carrier` is what the transport hands the handler (the HTTP request, the gRPC call). With security on, a call the
   * module's guard did not check (a handler reached some other way) is refused: the default is closed.
   */
  of(invocation: A2aInvocation, carrier: object): A2aCallContext {
    if (this.security.enabled && !passedAuthGuard(invocation)) throw new A2aError('Unauthenticated');
    return callContextOf(invocation, carrier, this.resolvePrincipal);
  }
}

/** The context an operation runs with, once the app's guards have run: their principal, or the resolver's. */
export function callContextOf(
  invocation: A2aInvocation,
  carrier: object,
  resolve: A2aPrincipalResolver,
): A2aCallContext {
  const principal = invocation.principal ?? resolve(carrier, invocation) ?? ANONYMOUS_PRINCIPAL;
  const context: A2aCallContext = {
    principal,
    tenant: invocation.tenant,
    binding: invocation.binding,
    version: invocation.version,
    extensions: invocation.extensions,
  };
  const lastEventId = invocation.headers['last-event-id'];
  return typeof lastEventId === 'string' ? { ...context, lastEventId } : context;
}
