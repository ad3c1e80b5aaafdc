import type { PeerCertificate } from 'node:tls';
import { mtlsScheme } from '../../../libs/a2a/src/index.js';
import type { CredentialSource } from '../../../libs/a2a/src/security/credential-source.js';
import {
  certificateIssuer,
  certificateSubject,
  subjectAltNames,
} from '../../../libs/a2a/src/security/schemes/certificate-subject.js';

const FINGERPRINT = 'D9:90:5A:16:D3:9E:74:09:28:6E:7F:76:B8:64:5F:27:84:D3:1A:F2:39:E8:A3:77:3E:B9:F9:B0:D0:A0:58:1B';

/** The fields of node's PeerCertificate the scheme reads; the rest stays empty. */
function certificate(fields: { san?: string; cn?: string | string[]; fingerprint256?: string }): PeerCertificate {
  return {
    subject: { CN: fields.cn },
    issuer: { CN: 'Test CA' },
    subjectaltname: fields.san,
    fingerprint256: fields.fingerprint256 ?? FINGERPRINT,
    serialNumber: '26F0C253BDE3D9C267',
  } as unknown as PeerCertificate;
}

function source(peer: PeerCertificate | undefined, refused = false): CredentialSource {
  return {
    grpc: false,
    header: () => undefined,
    query: () => undefined,
    cookie: () => undefined,
    peerCertificate: () => peer,
    refusedPeerCertificate: () => refused,
  };
}

describe('subjectAltNames (node’s subjectaltname text)', () => {
  it('splits plain entries, IP addresses included', () => {
    expect(subjectAltNames('URI:spiffe://test/alice, DNS:localhost, IP Address:127.0.0.1')).toEqual([
      { type: 'URI', value: 'spiffe://test/alice' },
      { type: 'DNS', value: 'localhost' },
      { type: 'IP Address', value: '127.0.0.1' },
    ]);
  });

  it('decodes JSON-quoted values, so a comma inside a SAN does not make a second name', () => {
    // What node 20 prints for a URI SAN "spiffe://test/a, DNS:evil" (checked with crypto.X509Certificate).
    expect(
      subjectAltNames('URI:"spiffe://test/a\\u002c DNS:evil", DNS:ok.test, URI:"spiffe://\\u00e9/\\"q\\""'),
    ).toEqual([
      { type: 'URI', value: 'spiffe://test/a, DNS:evil' },
      { type: 'DNS', value: 'ok.test' },
      { type: 'URI', value: 'spiffe://é/"q"' },
    ]);
  });

  it('stops at the first malformed entry and reads nothing from an absent one', () => {
    expect(subjectAltNames('DNS:a, URI:"unterminated')).toEqual([{ type: 'DNS', value: 'a' }]);
    expect(subjectAltNames('URI:"a"junk, DNS:b')).toEqual([{ type: 'URI', value: 'a' }]);
    expect(subjectAltNames(undefined)).toEqual([]);
    expect(subjectAltNames('')).toEqual([]);
  });
});

describe('certificateIssuer', () => {
  it("prints the whole DN in the certificate's order, escaping what could join two names", () => {
    const issued = (issuer: Record<string, string | string[]>) => ({ issuer }) as unknown as PeerCertificate;
    expect(certificateIssuer(issued({ C: 'DE', O: 'Acme', CN: 'Test CA' }))).toBe('C=DE, O=Acme, CN=Test CA');
    expect(certificateIssuer(issued({ OU: ['a', 'b'], CN: 'x|y, z=1' }))).toBe('OU=a+b, CN=x\\|y\\, z\\=1');
    expect(certificateIssuer(issued({}))).toBeUndefined();
    expect(certificateIssuer({} as PeerCertificate)).toBeUndefined();
  });
});

describe('certificateSubject', () => {
  it('prefers the first URI SAN, then the first DNS SAN, then the CN', () => {
    expect(
      certificateSubject(
        certificate({ san: 'DNS:a.test, URI:spiffe://test/alice, URI:spiffe://test/bob', cn: 'alice' }),
      ),
    ).toBe('spiffe://test/alice');
    expect(certificateSubject(certificate({ san: 'IP Address:10.0.0.1, DNS:a.test, DNS:b.test', cn: 'alice' }))).toBe(
      'a.test',
    );
    expect(certificateSubject(certificate({ cn: 'alice' }))).toBe('alice');
  });

  it('names nobody when there is neither a SAN it reads nor a single CN', () => {
    expect(certificateSubject(certificate({ san: 'IP Address:10.0.0.1' }))).toBeUndefined();
    expect(certificateSubject(certificate({ cn: ['alice', 'bob'] }))).toBeUndefined();
    expect(certificateSubject(certificate({ cn: '' }))).toBeUndefined();
  });
});

describe('mtlsScheme', () => {
  it('declares an mtlsSecurityScheme and has no challenge', () => {
    expect(mtlsScheme().declaration).toEqual({ mtlsSecurityScheme: {} });
    expect(mtlsScheme({ description: 'SPIFFE workloads' }).declaration).toEqual({
      mtlsSecurityScheme: { description: 'SPIFFE workloads' },
    });
    expect(mtlsScheme().challenge).toBeUndefined();
  });

  it('is absent without a certificate, and invalid with one the TLS layer could not verify (D3)', () => {
    expect(mtlsScheme().authenticate(source(undefined))).toEqual({ status: 'absent' });
    expect(mtlsScheme().authenticate(source(undefined, true))).toMatchObject({ status: 'invalid' });
  });

  it('grants the subject, vouched for by the issuer DN, with the fingerprint, serial number and issuer CN as claims', () => {
    expect(mtlsScheme().authenticate(source(certificate({ san: 'URI:spiffe://test/alice', cn: 'alice' })))).toEqual({
      status: 'granted',
      grant: {
        subject: 'spiffe://test/alice',
        issuer: 'CN=Test CA',
        scopes: [],
        claims: { fingerprint256: FINGERPRINT, serialNumber: '26F0C253BDE3D9C267', issuer: 'Test CA' },
      },
    });
  });

  it('forbids subjects outside allowedSubjects', () => {
    const scheme = mtlsScheme({ allowedSubjects: ['spiffe://test/alice'] });
    expect(scheme.authenticate(source(certificate({ san: 'URI:spiffe://test/alice' })))).toMatchObject({
      status: 'granted',
    });
    expect(scheme.authenticate(source(certificate({ san: 'URI:spiffe://test/mallory' })))).toMatchObject({
      status: 'forbidden',
    });
  });

  it('forbids certificates outside the pinned fingerprints, whichever way the pins are written', () => {
    const plainLowercase = FINGERPRINT.replace(/:/g, '').toLowerCase();
    for (const pin of [FINGERPRINT, plainLowercase]) {
      const scheme = mtlsScheme({ fingerprints: [pin] });
      expect(scheme.authenticate(source(certificate({ san: 'URI:spiffe://test/alice' })))).toMatchObject({
        status: 'granted',
      });
      expect(
        scheme.authenticate(
          source(certificate({ san: 'URI:spiffe://test/alice', fingerprint256: FINGERPRINT.replace('D9', 'D8') })),
        ),
      ).toMatchObject({ status: 'forbidden' });
    }
  });

  it('refuses at construction a pin that is not a SHA-256 fingerprint', () => {
    expect(() => mtlsScheme({ fingerprints: ['AB:CD'] })).toThrow('not a SHA-256 fingerprint');
  });

  it('forbids a certificate that names no subject, and uses subjectOf when given', () => {
    expect(mtlsScheme().authenticate(source(certificate({ san: 'IP Address:10.0.0.1' })))).toMatchObject({
      status: 'forbidden',
    });
    const byCn = mtlsScheme({ subjectOf: (cert) => cert.subject.CN as string });
    expect(byCn.authenticate(source(certificate({ san: 'URI:spiffe://test/alice', cn: 'alice' })))).toMatchObject({
      status: 'granted',
      grant: { subject: 'alice' },
    });
  });
});
