import type { A2aInvocation } from '../context/a2a-invocation.js';
import type { ProtocolBinding } from '../protocol/a2a.types.js';
import { skillIdOf, taskIdOf, type A2aOperation } from './a2a-operations.js';

/** The invocation of `operation` with its validated `request`, as every binding builds it before the app's guards run. */
export function newInvocation(
  operation: A2aOperation,
  binding: ProtocolBinding,
  request: object,
  protocol: { version: string; extensions: readonly string[] },
  headers: A2aInvocation['headers'],
): A2aInvocation {
  const fields = request as Record<string, unknown>;
  return {
    operation: operation.name,
    binding,
    request: fields,
    taskId: taskIdOf(fields),
    skillId:
      operation.name === 'SendMessage' || operation.name === 'SendStreamingMessage' ? skillIdOf(fields) : undefined,
    tenant: typeof fields.tenant === 'string' ? fields.tenant : '',
    version: protocol.version,
    extensions: protocol.extensions,
    headers,
  };
}
