import type { PeerCertificate } from 'node:tls';
import type { A2aSecurityScheme, SchemeOutcome } from '../a2a-security-scheme.js';
import { arrayOf, checkOptions, fn, object, text } from '../../a2a-options.rules.js';
import { InvalidSecurityConfigError } from '../../errors/security-config.error.js';
import { certificateIssuer, certificateSubject } from './certificate-subject.js';

/** Options of `mtlsScheme`: which client certificates are let in, and the subject each authenticates. */
export interface MtlsSchemeOptions {
  /**
   * The subject a client certificate authenticates. Default: its first URI SAN (a SPIFFE ID), else its first DNS
   * SAN, else its subject CN. A certificate without one is refused (403).
   */
  subjectOf?: (certificate: PeerCertificate) => string | undefined;
  /** Subjects allowed in; others get 403 / PERMISSION_DENIED. Default: any certificate that chains to the server's CA. */
  allowedSubjects?: readonly string[];
  /** SHA-256 fingerprints to pin (`AB:CD:…` as node prints them, or plain hex); others get 403. Default: no pinning. */
  fingerprints?: readonly string[];
  description?: string;
}

const MTLS_SCHEME_OPTIONS = object({
  subjectOf: fn(),
  allowedSubjects: arrayOf(text()),
  fingerprints: arrayOf(text()),
  description: text(),
});

const SHA256_HEX = /^[0-9A-F]{64}$/;

/**
 * A TLS client certificate (mutual TLS). The chain is checked by the TLS layer against the server's `ca`, not here:
 * an HTTPS server needs `requestCert: true` (and `rejectUnauthorized: false` if another scheme is an alternative),
 * the gRPC binding credentials that request a certificate. A certificate that failed that check never reaches this
 * scheme, so the call counts as one without a certificate. There is no challenge to send: TLS asked already.
 *
 * The principal is `<scheme>:<issuer DN>|<subject>`: two trusted CAs that certify the same subject make two owners.
 * The issuer is told by its distinguished name (the peer certificate of a gRPC call has no chain to fingerprint), so
 * CAs trusted side by side must not share one.
 */
export function mtlsScheme(options: MtlsSchemeOptions = {}): A2aSecurityScheme {
  checkOptions(MTLS_SCHEME_OPTIONS, options, 'mtlsScheme', InvalidSecurityConfigError);
  const subjectOf = options.subjectOf ?? certificateSubject;
  const allowed = options.allowedSubjects && new Set(options.allowedSubjects);
  const pins = options.fingerprints && new Set(options.fingerprints.map(pinOf));
  return {
    declaration: { mtlsSecurityScheme: options.description ? { description: options.description } : {} },
    authenticate(source): SchemeOutcome {
      const certificate = source.peerCertificate();
      if (!certificate)
        return source.refusedPeerCertificate()
          ? { status: 'invalid', reason: 'unverified client certificate' }
          : { status: 'absent' };
      const fingerprint256 = certificate.fingerprint256;
      if (pins && !pins.has(normalized(fingerprint256)))
        return { status: 'forbidden', reason: `certificate ${fingerprint256} is not pinned` };
      const subject = subjectOf(certificate);
      if (subject === undefined)
        return { status: 'forbidden', reason: `certificate ${fingerprint256} names no subject` };
      if (allowed && !allowed.has(subject)) return { status: 'forbidden', reason: `subject ${subject} is not allowed` };
      const issuer: unknown = certificate.issuer?.CN;
      return {
        status: 'granted',
        grant: {
          subject,
          issuer: certificateIssuer(certificate),
          scopes: [],
          claims: {
            fingerprint256,
            serialNumber: certificate.serialNumber,
            ...(typeof issuer === 'string' ? { issuer } : {}),
          },
        },
      };
    },
  };
}

const normalized = (fingerprint: string | undefined) => (fingerprint ?? '').replace(/:/g, '').toUpperCase();

/** A pin that is not a SHA-256 fingerprint would match nothing: fail at boot instead. */
function pinOf(fingerprint: string): string {
  const pin = normalized(fingerprint);
  if (!SHA256_HEX.test(pin))
    throw new InvalidSecurityConfigError(`mtlsScheme: "${fingerprint}" is not a SHA-256 fingerprint`);
  return pin;
}
