import { PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../../a2a.constants.js';
import { A2aError } from '../../errors/a2a.error.js';
import type { HttpRequest } from './http-request.js';

/** What the HTTP request says of the protocol: the version it speaks and the extensions it activates. */
export interface HttpProtocolContext {
  readonly version: string;
  readonly extensions: string[];
}

/**
 * The protocol context of an HTTP request (spec §3.2.6, §3.6): `A2A-Version` from the header or the query parameter of
 * that name; a missing version is served as 1.0 (a deviation from spec §3.6.2's 0.3, documented in docs/decisions.md: this
 * server speaks only 1.0, and rejecting header-less calls would only break curl users); `A2A-Extensions` as a
 * comma-separated list.
 *
 * @throws A2aError `VersionNotSupported`.
 */
export function httpProtocolContext(req: HttpRequest): HttpProtocolContext {
  const version = requestedVersion(req);
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
  return { version, extensions: extensionsOf(req.headers['a2a-extensions']) };
}

function requestedVersion(req: HttpRequest): string {
  const header = req.headers['a2a-version'];
  // Only without the header: Express parses the whole query string again on every read of req.query.
  const raw = (Array.isArray(header) ? header[0] : header) ?? queryVersion(req);
  if (raw === undefined) return PROTOCOL_VERSION;
  // The common exact spelling needs no normalizing.
  if (raw === PROTOCOL_VERSION) return raw;
  const trimmed = raw.trim();
  if (trimmed === '') return PROTOCOL_VERSION;
  // spec §3.6: Major.Minor; a patch component must not affect negotiation.
  return trimmed.split('.').slice(0, 2).join('.');
}

function queryVersion(req: HttpRequest): string | undefined {
  const query = req.query?.['A2A-Version'];
  return typeof query === 'string' ? query : undefined;
}

function extensionsOf(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const joined = Array.isArray(header) ? header.join(',') : header;
  return joined
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
