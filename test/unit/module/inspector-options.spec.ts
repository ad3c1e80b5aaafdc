import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import type { IncomingMessage } from 'node:http';
import {
  A2aMessages,
  A2aModule,
  InspectorInProductionError,
  InvalidA2aOptionsError,
} from '../../../libs/a2a/src/index.js';
import { checkA2aOptions } from '../../../libs/a2a/src/a2a-options.check.js';
import {
  applyCredentialCookie,
  credentialHeaders,
  INSPECTOR_CREDENTIAL_COOKIE,
} from '../../../libs/a2a/src/inspector/inspector-credential.js';

/** Option `inspector`: its check, its refusal in production, and the login cookie the page's files accept. */

const card = { name: 'Inspected', description: 'An agent with the inspector page' };

describe('option inspector', () => {
  it('accepts {}, a path and allowInProduction', () => {
    expect(() => checkA2aOptions({ card, inspector: {} }, false)).not.toThrow();
    expect(() =>
      checkA2aOptions({ card, inspector: { path: '/tools/inspector', allowInProduction: true } }, false),
    ).not.toThrow();
  });

  it.each([
    [{ path: 'has space' }, 'inspector.path'],
    [{ path: '/a?b' }, 'inspector.path'],
    [{ allowInProduction: 'yes' }, 'inspector.allowInProduction'],
    [{ pth: '/x' }, 'pth'],
    [true, 'inspector'],
  ])('refuses %j, naming %s', (inspector, named) => {
    expect(() => checkA2aOptions({ card, inspector }, false)).toThrow(InvalidA2aOptionsError);
    expect(() => checkA2aOptions({ card, inspector }, false)).toThrow(named);
  });

  describe('under NODE_ENV=production', () => {
    const saved = process.env.NODE_ENV;
    beforeEach(() => (process.env.NODE_ENV = 'production'));
    afterEach(() => (process.env.NODE_ENV = saved));

    const boot = (options: object) =>
      Test.createTestingModule({ imports: [A2aModule.forRoot({ card, ...options })] }).compile();

    it('refuses to start with the inspector, with a typed error that says what to do', async () => {
      const booting = boot({ inspector: {} });
      await expect(booting).rejects.toThrow(InspectorInProductionError);
      await expect(boot({ inspector: {} })).rejects.toThrow(A2aMessages.inspectorInProduction());
    });

    it('starts with allowInProduction, and without the option', async () => {
      await (await boot({ inspector: { allowInProduction: true } })).close();
      await (await boot({})).close();
    });
  });
});

describe('the inspector login cookie', () => {
  const request = (cookie: string | undefined, headers: Record<string, string> = {}) =>
    ({ headers: { ...headers, ...(cookie === undefined ? {} : { cookie }) } }) as unknown as IncomingMessage;
  const cookie = (value: unknown) => `${INSPECTOR_CREDENTIAL_COOKIE}=${encodeURIComponent(JSON.stringify(value))}`;

  it('names the headers of the card schemes: an API key in a header, Authorization for the others', () => {
    const headers = credentialHeaders({
      key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
      query: { apiKeySecurityScheme: { location: 'query', name: 'key' } },
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } },
      mtls: { mtlsSecurityScheme: {} },
    });
    expect([...headers].sort()).toEqual(['authorization', 'x-api-key']);
  });

  it('sets the header it names when the card names it and the request does not send it', () => {
    const allowed = new Set(['x-api-key']);
    const req = request(`a=b; ${cookie({ header: 'X-API-Key', value: 'k' })}`);
    applyCredentialCookie(req, allowed);
    expect(req.headers['x-api-key']).toBe('k');

    const sent = request(cookie({ header: 'X-API-Key', value: 'k' }), { 'x-api-key': 'own' });
    applyCredentialCookie(sent, allowed);
    expect(sent.headers['x-api-key']).toBe('own');
  });

  it.each([
    ['another header', cookie({ header: 'Host', value: 'evil' })],
    ['not JSON', `${INSPECTOR_CREDENTIAL_COOKIE}=%7Bnope`],
    ['a bad escape', `${INSPECTOR_CREDENTIAL_COOKIE}=%E0%A4%A`],
    ['no value', cookie({ header: 'X-API-Key' })],
    ['an empty value', cookie({ header: 'X-API-Key', value: '' })],
    ['JSON null', cookie(null)],
  ])('ignores %s', (_what, header) => {
    const req = request(header);
    applyCredentialCookie(req, new Set(['x-api-key']));
    expect(req.headers['x-api-key']).toBeUndefined();
    expect(req.headers.host).toBeUndefined();
  });
});
