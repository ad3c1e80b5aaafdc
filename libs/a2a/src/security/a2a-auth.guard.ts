import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { a2aInvocationOf, type A2aInvocation } from '../context/a2a-invocation.js';
import type { A2aPrincipal } from '../context/call-context.js';
import { A2aError } from '../errors/a2a.error.js';
import { A2aSecurityPolicy } from './a2a-security.policy.js';
import { grpcCredentialSource } from './grpc-credential.source.js';
import { httpCredentialSource } from './http-credential.source.js';

/** The invocations this guard let through: the bindings refuse any other while security is on (fail closed). */
const authenticated = new WeakSet<A2aInvocation>();

/**
 * Enforces option `security` on every A2A operation of every binding: reads the credentials of the HTTP request or
 * the gRPC metadata, checks them and the card's and the operation's requirements, and sets the principal, which the
 * app's own guards then see in `a2aInvocationOf(context).principal`. A2aModule puts it before the module's `guards`;
 * without schemes it lets everything through as the anonymous principal.
 */
@Injectable()
export class A2aAuthGuard implements CanActivate {
  constructor(private readonly policy: A2aSecurityPolicy) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (!this.policy.enabled) return true;
    const invocation = a2aInvocationOf(context);
    if (!invocation) throw new A2aError('Unauthenticated');
    const source =
      context.getType() === 'rpc'
        ? grpcCredentialSource(context.getArgByIndex(1), context.getArgByIndex(2))
        : httpCredentialSource(context.switchToHttp().getRequest());
    const accept = (principal: A2aPrincipal) => {
      invocation.principal = principal;
      authenticated.add(invocation);
      return true;
    };
    const principal = this.policy.authenticate(source, invocation.operation, invocation.tenant);
    return principal instanceof Promise ? principal.then(accept) : accept(principal);
  }
}

/** Whether the guard checked this invocation: with security on, nothing else may run an operation. */
export function passedAuthGuard(invocation: A2aInvocation): boolean {
  return authenticated.has(invocation);
}
