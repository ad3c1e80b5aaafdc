import type { Metadata } from '@grpc/grpc-js';
import { PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../../a2a.constants.js';
import { ANONYMOUS_PRINCIPAL, type A2aCallContext, type A2aPrincipal } from '../../context/call-context.js';
import { A2aError } from '../../errors/a2a.error.js';
import { A2A_PRINCIPAL_REQUEST_KEY } from '../http/http-call-context.js';

/**
 * The call context of a gRPC call (§10.2), the same as the HTTP bindings build: `a2a-version` and `a2a-extensions`
 * from the metadata (a missing version is served as 1.0, as on HTTP), the tenant from the request's `tenant` field,
 * and the principal a guard left on the call object under {@link A2A_PRINCIPAL_REQUEST_KEY} (the third handler
 * argument, `context.getArgByIndex(2)` in a guard).
 */
export function grpcCallContext(metadata: Metadata, call: object, tenant: string): A2aCallContext {
  const version = requestedVersion(metadata);
  if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    throw new A2aError('VersionNotSupported', `A2A-Version ${version} is not supported; this agent speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`, {
      requested: version,
      supported: SUPPORTED_PROTOCOL_VERSIONS.join(','),
    });
  }
  const principal = (call as Record<string, A2aPrincipal | undefined>)[A2A_PRINCIPAL_REQUEST_KEY] ?? ANONYMOUS_PRINCIPAL;
  return { principal, tenant, binding: 'GRPC', version, extensions: extensionsOf(metadata) };
}

function requestedVersion(metadata: Metadata): string {
  const raw = metadata.get('a2a-version')[0];
  if (typeof raw !== 'string' || raw.trim() === '') return PROTOCOL_VERSION;
  // R7: Major.Minor; a patch component must not affect negotiation.
  return raw.trim().split('.').slice(0, 2).join('.');
}

/** Repeated `a2a-extensions` entries and comma-separated lists within one entry are both accepted. */
function extensionsOf(metadata: Metadata): string[] {
  return metadata
    .get('a2a-extensions')
    .flatMap((value) => (typeof value === 'string' ? value.split(',') : []))
    .map((uri) => uri.trim())
    .filter(Boolean);
}
