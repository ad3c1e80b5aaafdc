import {
  A2aMessages,
  apiKeyScheme,
  bearerJwtScheme,
  bearerTokenScheme,
  httpBasicScheme,
  InvalidA2aOptionsError,
  InvalidSecurityConfigError,
  mtlsScheme,
  oauth2Scheme,
  type ApiKeySchemeOptions,
} from '../../../libs/a2a/src/index.js';
import type { CredentialSource } from '../../../libs/a2a/src/security/credential-source.js';

/** The scheme factories check their options when called: a scheme that cannot work stops the app where it is built. */

function apiKeyHeader(value: string | undefined): CredentialSource {
  return {
    header: (name) => (name === 'x-api-key' ? value : undefined),
    query: () => undefined,
    cookie: () => undefined,
    peerCertificate: () => undefined,
    refusedPeerCertificate: () => false,
    grpc: false,
  };
}

function refusal(build: () => unknown): Error {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSecurityConfigError);
    expect(error).toBeInstanceOf(InvalidA2aOptionsError);
    return error as Error;
  }
  throw new Error('the scheme was built');
}

const apiKey = (options: Partial<ApiKeySchemeOptions>) => () =>
  apiKeyScheme({ in: 'header', name: 'X-API-Key', keys: { alice: 'key-a' }, ...options } as ApiKeySchemeOptions);

describe('apiKeyScheme options', () => {
  it.each([undefined, '', 'undefined', 'null'])('refuses key %p, naming the subject and never the key', (key) => {
    const message = refusal(apiKey({ keys: { alice: key as string } })).message;
    expect(message).toBe(A2aMessages.invalidSecret('apiKeyScheme', 'keys.alice', key));
  });

  it('refuses one key for two subjects, naming both and not the key', () => {
    const message = refusal(apiKey({ keys: { alice: 'shared-key-1', bob: 'key-b', carol: 'shared-key-1' } })).message;
    expect(message).toBe(A2aMessages.sharedSecret('apiKeyScheme', 'keys', 'alice', 'carol'));
    expect(message).not.toContain('shared-key-1');
  });

  it('refuses an unknown location, an empty name, no keys, an unknown option', () => {
    expect(refusal(apiKey({ in: 'headers' as 'header' })).message).toBe(
      A2aMessages.optionMismatch('apiKeyScheme', 'in', 'headers', 'one of "header", "query", "cookie"'),
    );
    expect(refusal(apiKey({ name: '' })).message).toBe(
      A2aMessages.optionMismatch('apiKeyScheme', 'name', '', 'a non-empty string'),
    );
    expect(refusal(apiKey({ keys: {} })).message).toBe(
      A2aMessages.optionKindMismatch(
        'apiKeyScheme',
        'keys',
        {},
        'an object of non-empty strings by name, at least one',
      ),
    );
    const keyInsteadOfKeys = refusal(apiKey({ keys: 'the-key-itself' as never })).message;
    expect(keyInsteadOfKeys).toBe(
      'apiKeyScheme option keys is a string; it must be an object of non-empty strings by name, at least one.',
    );
    expect(refusal(apiKey({ keys: undefined })).message).toBe(A2aMessages.apiKeyWithoutKeys());
    expect(
      refusal(() => apiKeyScheme({ in: 'header', name: 'X-API-Key', key: 'k' } as unknown as ApiKeySchemeOptions))
        .message,
    ).toMatch(/^apiKeyScheme option key is not an option/);
  });

  it('never takes the header value "undefined" as a key: the scheme with such a key is not built, and other keys do not match it', async () => {
    refusal(apiKey({ keys: { alice: `${process.env.NESTJS_A2A_UNSET_VARIABLE}` } }));
    const scheme = apiKeyScheme({ in: 'header', name: 'X-API-Key', keys: { alice: 'key-a' } });
    expect(await scheme.authenticate(apiKeyHeader('undefined'))).toEqual({
      status: 'invalid',
      reason: 'unknown API key',
    });
    expect(await scheme.authenticate(apiKeyHeader('key-a'))).toMatchObject({
      status: 'granted',
      grant: { subject: 'alice' },
    });
  });
});

describe('other schemes with fixed options', () => {
  it('httpBasicScheme and bearerTokenScheme need a verify function', () => {
    expect(refusal(() => httpBasicScheme({} as never)).message).toBe(
      A2aMessages.optionMismatch('httpBasicScheme', 'verify', undefined, 'a function'),
    );
    expect(refusal(() => bearerTokenScheme({ verify: 'secret' } as never)).message).toBe(
      A2aMessages.optionMismatch('bearerTokenScheme', 'verify', 'secret', 'a function'),
    );
  });

  it('oauth2Scheme refuses flow URLs the card could not publish as they are', () => {
    const introspect = async () => ({ active: false });
    expect(
      refusal(() =>
        oauth2Scheme({ flows: { clientCredentials: { tokenUrl: 'idp.example/token', scopes: {} } }, introspect }),
      ).message,
    ).toMatch(
      /^oauth2Scheme option flows\.clientCredentials\.tokenUrl is "idp\.example\/token"; it must be an absolute http\(s\) URL/,
    );
    expect(refusal(() => oauth2Scheme({ flows: { clientCredential: {} } as never, introspect })).message).toMatch(
      /^oauth2Scheme option flows\.clientCredential is not an option/,
    );
    expect(() =>
      oauth2Scheme({
        flows: { clientCredentials: { tokenUrl: 'https://idp.example/token', scopes: { read: 'Read' } } },
        introspect,
      }),
    ).not.toThrow();
  });

  it('bearerJwtScheme refuses a misspelt option that would otherwise fall back to its default', () => {
    const jwt = { issuer: 'https://idp.example', audience: 'a2a', secret: 'a-shared-secret-of-at-least-32-bytes!' };
    expect(() => bearerJwtScheme(jwt)).not.toThrow();
    expect(refusal(() => bearerJwtScheme({ ...jwt, algorithm: ['HS512'] } as never)).message).toMatch(
      /^bearerJwtScheme option algorithm is not an option/,
    );
  });

  it('mtlsScheme refuses an empty allowed subject (an unset variable) and unknown options', () => {
    expect(refusal(() => mtlsScheme({ allowedSubjects: ['spiffe://a', ''] })).message).toBe(
      A2aMessages.optionMismatch('mtlsScheme', 'allowedSubjects[1]', '', 'a non-empty string'),
    );
    expect(refusal(() => mtlsScheme({ allowedSubject: ['x'] } as never)).message).toMatch(
      /^mtlsScheme option allowedSubject is not an option/,
    );
  });
});
