import type { Metadata } from '@grpc/grpc-js';
import { PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../../a2a.constants.js';
import { A2aError } from '../../errors/a2a.error.js';

/**
 * The protocol context of a gRPC call (§10.2), as the HTTP bindings read theirs: `a2a-version` and `a2a-extensions`
 * from the metadata; a missing version is served as 1.0, as on HTTP.
 *
 * @throws A2aError `VersionNotSupported`.
 */
export function grpcProtocolContext(metadata: Metadata): { version: string; extensions: string[] } {
  const version = requestedVersion(metadata);
  if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    throw new A2aError(
      'VersionNotSupported',
      `A2A-Version ${version} is not supported; this agent speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
      {
        requested: version,
        supported: SUPPORTED_PROTOCOL_VERSIONS.join(','),
      },
    );
  }
  return { version, extensions: extensionsOf(metadata) };
}

/** The text entries of the metadata, as the invocation's `headers`. */
export function metadataHeaders(metadata: Metadata): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(metadata.getMap())) if (typeof value === 'string') headers[key] = value;
  return headers;
}

function requestedVersion(metadata: Metadata): string {
  const raw = metadata.get('a2a-version')[0];
  if (raw === PROTOCOL_VERSION) return raw;
  if (typeof raw !== 'string' || raw.trim() === '') return PROTOCOL_VERSION;
  // spec §3.6: Major.Minor; a patch component must not affect negotiation.
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
