import type { PeerCertificate } from 'node:tls';

/** One entry of a certificate's subjectAltName, as node prints it: `URI`, `DNS`, `IP Address`, `email`, … */
export interface SubjectAltName {
  readonly type: string;
  readonly value: string;
}

/**
 * Who a client certificate names: its first URI SAN (a SPIFFE ID), else its first DNS SAN, else its subject CN.
 * Undefined when it names none of these, or several CNs (ambiguous).
 */
export function certificateSubject(certificate: PeerCertificate): string | undefined {
  const names = subjectAltNames(certificate.subjectaltname);
  const cn: unknown = certificate.subject?.CN;
  return (
    names.find((n) => n.type === 'URI')?.value ??
    names.find((n) => n.type === 'DNS')?.value ??
    (typeof cn === 'string' && cn !== '' ? cn : undefined)
  );
}

/**
 * The distinguished name of the CA that issued a certificate, as `CN=Test CA, O=Acme` in the certificate's order
 * (`\`, `,`, `+`, `=` and `|` escaped): the same on HTTPS and gRPC, whose peer certificate carries no chain to
 * fingerprint. Undefined when the certificate names no issuer.
 */
export function certificateIssuer(certificate: PeerCertificate): string | undefined {
  const issuer = certificate.issuer as unknown as Record<string, string | string[]> | undefined;
  if (!issuer) return undefined;
  const escape = (value: string) => value.replace(/[\\,+=|]/g, (c) => `\\${c}`);
  const attributes = Object.entries(issuer).map(([type, value]) => `${type}=${[value].flat().map(escape).join('+')}`);
  return attributes.length > 0 ? attributes.join(', ') : undefined;
}

/**
 * Parses node's `subjectaltname` text (`URI:spiffe://a/b, DNS:x, IP Address:127.0.0.1`). Since node 17 a value with a
 * comma, quote or non-ASCII character is printed as a JSON string (`URI:"a,b"`), so a plain split on ", " would let a
 * crafted SAN smuggle in a second name. Stops at the first malformed entry.
 */
export function subjectAltNames(text: string | undefined): SubjectAltName[] {
  const names: SubjectAltName[] = [];
  let at = 0;
  while (text && at < text.length) {
    const colon = text.indexOf(':', at);
    if (colon < 0) break;
    const type = text.slice(at, colon);
    let value: string;
    let end: number;
    if (text[colon + 1] === '"') {
      end = colon + 2;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      end += 1;
      try {
        value = JSON.parse(text.slice(colon + 1, end)) as string;
      } catch {
        break;
      }
    } else {
      end = text.indexOf(', ', colon);
      if (end < 0) end = text.length;
      value = text.slice(colon + 1, end);
    }
    names.push({ type, value });
    if (end < text.length && !text.startsWith(', ', end)) break;
    at = end + 2;
  }
  return names;
}
