import { Metadata } from '@grpc/grpc-js';
import { A2aError } from '../../../libs/a2a/src/errors/a2a.error.js';
import { grpcProtocolContext, metadataHeaders } from '../../../libs/a2a/src/bindings/grpc/grpc-protocol-context.js';

/** Service parameters from gRPC metadata (§10.2), as the invocation carries them. */

function metadataOf(entries: [string, string][]): Metadata {
  const metadata = new Metadata();
  for (const [key, value] of entries) metadata.add(key, value);
  return metadata;
}

describe('grpcProtocolContext', () => {
  it('defaults to version 1.0 and no extensions', () => {
    expect(grpcProtocolContext(new Metadata())).toEqual({ version: '1.0', extensions: [] });
  });

  it('negotiates on Major.Minor of a2a-version (spec §3.6)', () => {
    expect(grpcProtocolContext(metadataOf([['a2a-version', ' 1.0.7 ']])).version).toBe('1.0');
  });

  it('refuses other versions with VersionNotSupported', () => {
    const call = () => grpcProtocolContext(metadataOf([['a2a-version', '0.3']]));
    expect(call).toThrow(A2aError);
    expect(call).toThrow(
      expect.objectContaining({ kind: 'VersionNotSupported', metadata: { requested: '0.3', supported: '1.0' } }),
    );
  });

  it('reads a2a-extensions as repeated entries and comma-separated lists', () => {
    const metadata = metadataOf([
      ['a2a-extensions', 'https://e.example/a, https://e.example/b'],
      ['a2a-extensions', 'https://e.example/c'],
    ]);
    expect(grpcProtocolContext(metadata).extensions).toEqual([
      'https://e.example/a',
      'https://e.example/b',
      'https://e.example/c',
    ]);
  });
});

describe('metadataHeaders', () => {
  it('keeps the text entries by name, not the binary ones', () => {
    const metadata = metadataOf([['authorization', 'Bearer x']]);
    metadata.add('trace-bin', Buffer.from([1, 2]));
    expect(metadataHeaders(metadata)).toEqual({ authorization: 'Bearer x' });
  });
});
