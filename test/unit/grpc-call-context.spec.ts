import { Metadata } from '@grpc/grpc-js';
import { A2aError } from '../../libs/a2a/src/errors/a2a.error.js';
import { A2A_PRINCIPAL_REQUEST_KEY } from '../../libs/a2a/src/index.js';
import { grpcCallContext } from '../../libs/a2a/src/bindings/grpc/grpc-call-context.js';

/** Service parameters from gRPC metadata (§10.2) and the tenant from the request, into the shared call context. */

function metadataOf(entries: [string, string][]): Metadata {
  const metadata = new Metadata();
  for (const [key, value] of entries) metadata.add(key, value);
  return metadata;
}

describe('grpcCallContext', () => {
  it('defaults to version 1.0, no extensions, the anonymous principal', () => {
    expect(grpcCallContext(new Metadata(), {}, '')).toEqual({
      principal: { id: 'anonymous', authenticated: false },
      tenant: '',
      binding: 'GRPC',
      version: '1.0',
      extensions: [],
    });
  });

  it('negotiates on Major.Minor of a2a-version (R7)', () => {
    expect(grpcCallContext(metadataOf([['a2a-version', ' 1.0.7 ']]), {}, '').version).toBe('1.0');
  });

  it('refuses other versions with VersionNotSupported', () => {
    const call = () => grpcCallContext(metadataOf([['a2a-version', '0.3']]), {}, '');
    expect(call).toThrow(A2aError);
    expect(call).toThrow(expect.objectContaining({ kind: 'VersionNotSupported', metadata: { requested: '0.3', supported: '1.0' } }));
  });

  it('reads a2a-extensions as repeated entries and comma-separated lists', () => {
    const metadata = metadataOf([
      ['a2a-extensions', 'https://e.example/a, https://e.example/b'],
      ['a2a-extensions', 'https://e.example/c'],
    ]);
    expect(grpcCallContext(metadata, {}, '').extensions).toEqual(['https://e.example/a', 'https://e.example/b', 'https://e.example/c']);
  });

  it('takes the tenant given, and the principal a guard left on the call object', () => {
    const principal = { id: 'alice', authenticated: true };
    expect(grpcCallContext(new Metadata(), { [A2A_PRINCIPAL_REQUEST_KEY]: principal }, 'acme')).toMatchObject({ tenant: 'acme', principal });
  });
});
