import { ANONYMOUS_PRINCIPAL, type A2aCallContext } from '../context/call-context.js';
import type { Message } from '../protocol/a2a.types.js';
import type { RestartableRun } from '../store/task-leases.js';

/** What the reaper of another replica needs to run a restartable skill again: never the caller's credentials. */
export function restartableRun(message: Message, call: A2aCallContext, attempt: number): RestartableRun {
  const { id, subject, scopes, claims } = call.principal;
  return {
    message,
    principal: {
      id,
      ...(subject === undefined ? {} : { subject }),
      ...(scopes ? { scopes } : {}),
      ...(claims ? { claims } : {}),
    },
    tenant: call.tenant,
    binding: call.binding,
    version: call.version,
    extensions: call.extensions,
    attempt,
  };
}

/** The call a re-run of `restart` runs under: the caller's principal without its credentials. */
export function callOfRestart(restart: RestartableRun): A2aCallContext {
  return {
    principal: { ...restart.principal, authenticated: restart.principal.id !== ANONYMOUS_PRINCIPAL.id },
    tenant: restart.tenant,
    binding: restart.binding,
    version: restart.version,
    extensions: restart.extensions,
  };
}
