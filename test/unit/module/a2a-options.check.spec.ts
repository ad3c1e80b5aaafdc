import { A2aMessages, InvalidA2aOptionsError } from '../../../libs/a2a/src/index.js';
import { InMemoryTaskStore } from '../../../libs/a2a/src/store.js';
import { checkA2aExtras, checkA2aOptions } from '../../../libs/a2a/src/a2a-options.check.js';

/** The declarative check of A2aModule's options: one test per kind of mistake, each naming the option's path. */

const card = { name: 'Checked', description: 'Options checked at boot' };

function refusal(options: unknown, fromFactory = false): InvalidA2aOptionsError {
  try {
    checkA2aOptions(options, fromFactory);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidA2aOptionsError);
    return error as InvalidA2aOptionsError;
  }
  throw new Error('the options were accepted');
}

describe('checkA2aOptions', () => {
  it('accepts a full, valid configuration and returns it as is', () => {
    const options = {
      card: {
        ...card,
        version: '2.0.0',
        provider: { organization: 'Acme', url: 'https://acme.example' },
        documentationUrl: 'https://acme.example/docs',
        iconUrl: 'http://127.0.0.1/icon.png',
        defaultInputModes: ['text/plain'],
      },
      baseUrl: 'https://agent.example.com',
      taskStore: new InMemoryTaskStore(),
      limits: {
        maxBodyBytes: 1024,
        maxJsonDepth: 40,
        maxTasks: Infinity,
        maxTasksPerPrincipal: Infinity,
        maxStreamsPerPrincipal: 100,
      },
      shutdownGraceMs: 0,
      security: {
        allowAnonymous: true,
        anonymousCallers: 'shared',
        operations: { CancelTask: [{}] },
        extendedCard: true,
      },
      push: {
        allowedCidrs: ['127.0.0.1/32'],
        allowedPorts: 'any',
        circuitBreaker: false,
        maxInFlightPerHost: 4,
        maxInFlightPerOwner: 8,
        secrets: { keys: { k1: Buffer.alloc(32) }, currentKeyId: 'k1' },
      },
      extensions: [{ uri: 'https://example.com/ext/v1', params: { a: 1 } }],
      audit: true,
      compat: { v03: true },
    };
    expect(checkA2aOptions(options, true)).toBe(options);
    expect(() =>
      checkA2aOptions({ card, push: { allowedPorts: [80, 65535], circuitBreaker: { failures: 3 } } }, true),
    ).not.toThrow();
  });

  it('refuses an unknown key at any level, naming it and the known ones', () => {
    expect(refusal({ card, security: { scheme: {} } }).message).toBe(
      A2aMessages.unknownOption('A2aModule', 'security.scheme', [
        'schemes',
        'requirements',
        'operations',
        'skills',
        'allowAnonymous',
        'anonymousCallers',
        'tenantPolicy',
        'extendedCard',
        'maxActiveTasksPerPrincipal',
      ]),
    );
    expect(refusal({ card: { ...card, descripton: 'x' } }).message).toMatch(
      /^A2aModule option card\.descripton is not an option/,
    );
    expect(refusal({ card, push: { circuitBreaker: { failure: 3 } } }).message).toMatch(
      /^A2aModule option push\.circuitBreaker\.failure is not an option/,
    );
    expect(refusal({ card, security: { operations: { Cancel: [] } } }).message).toMatch(
      /^A2aModule option security\.operations\.Cancel is not an option/,
    );
  });

  it("refuses a static option in what a factory returns, but takes forRoot's router", () => {
    expect(refusal({ card, jsonRpc: false }, true).message).toBe(A2aMessages.staticOptionInFactory('jsonRpc'));
    expect(() => checkA2aOptions({ card, router: class {} }, false)).not.toThrow();
  });

  it('refuses a value of the wrong type', () => {
    expect(refusal({ card, directDispatch: 'no' }).message).toBe(
      A2aMessages.optionMismatch('A2aModule', 'directDispatch', 'no', 'true or false'),
    );
    expect(refusal({ card, taskStore: { get: () => undefined } }).message).toMatch(
      /^A2aModule option taskStore is an object; it must be a TaskStore/,
    );
    expect(refusal({ card, security: { schemes: { mtls: { declaration: {} } } } }).message).toMatch(
      /^A2aModule option security\.schemes\.mtls is an object; it must be a security scheme/,
    );
    expect(refusal({ card, audit: 'yes' }).message).toMatch(
      /^A2aModule option audit is "yes"; it must be true or false, or an A2aAuditSink/,
    );
    expect(refusal({ card, extensions: {} }).message).toMatch(
      /^A2aModule option extensions is an object; it must be an array/,
    );
  });

  it.each([
    ['baseUrl', { baseUrl: 'localhost:3000' }],
    ['baseUrl', { baseUrl: 'ftp://agent.example.com' }],
    ['card.documentationUrl', { card: { ...card, documentationUrl: '/docs' } }],
    ['card.iconUrl', { card: { ...card, iconUrl: 'icon.png' } }],
    ['card.provider.url', { card: { ...card, provider: { organization: 'Acme', url: 'acme.example' } } }],
  ])('refuses %s that is not an absolute http(s) URL', (path, options) => {
    expect(refusal({ card, ...options }).message).toMatch(
      new RegExp(`^A2aModule option ${path.replace('.', '\\.')} is ".*"; it must be an absolute http\\(s\\) URL`),
    );
  });

  it('refuses a value outside an enumeration', () => {
    expect(refusal({ card, security: { anonymousCallers: 'public' } }).message).toBe(
      A2aMessages.optionMismatch('A2aModule', 'security.anonymousCallers', 'public', 'one of "isolated", "shared"'),
    );
    expect(refusal({ card, cardSigning: { keys: { activeKeys: () => [] }, coverage: 'all' } }).message).toMatch(
      /^A2aModule option cardSigning\.coverage is "all"/,
    );
    expect(refusal({ card, push: { allowedPorts: 'all' } }).message).toMatch(
      /^A2aModule option push\.allowedPorts is "all"; it must be "any"/,
    );
  });

  it.each([
    ['limits.maxJsonDepth', { limits: { maxJsonDepth: 41 } }, 41, 'an integer from 1 to 40'],
    ['limits.maxTasksPerPrincipal', { limits: { maxTasksPerPrincipal: 0 } }, 0, 'a positive integer, or Infinity'],
    ['push.maxInFlightPerHost', { push: { maxInFlightPerHost: 1.5 } }, 1.5, 'a positive integer'],
    ['push.allowedPorts[1]', { push: { allowedPorts: [443, 70000] } }, 70000, 'an integer, from 1 to 65535'],
    ['push.circuitBreaker.openMs', { push: { circuitBreaker: { openMs: -1 } } }, -1, 'a positive integer'],
    ['shutdownGraceMs', { shutdownGraceMs: Infinity }, Infinity, 'a number of ms, 0 or more'],
    ['leaseTtlMs', { leaseTtlMs: 0 }, 0, 'a whole number of ms, 1 or more'],
  ])('refuses %s out of range', (path, options, value, expected) => {
    expect(refusal({ card, ...options }).message).toBe(A2aMessages.optionMismatch('A2aModule', path, value, expected));
  });

  it.each([undefined, '', 'undefined', 'null', '   '])('refuses a push secrets key %p without showing it', (key) => {
    const message = refusal({ card, push: { secrets: { keys: { k1: key }, currentKeyId: 'k1' } } }).message;
    expect(message).toBe(A2aMessages.invalidSecret('A2aModule', 'push.secrets.keys.k1', key));
  });

  it('refuses a missing required option', () => {
    expect(refusal({ card: { name: 'No description' } }).message).toBe(
      A2aMessages.optionMismatch('A2aModule', 'card.description', undefined, 'a non-empty string'),
    );
    expect(refusal({}).message).toBe(A2aMessages.optionMismatch('A2aModule', 'card', undefined, 'an object'));
    expect(refusal({ card, cardSigning: {} }).message).toMatch(/^A2aModule option cardSigning\.keys is undefined/);
  });

  it('refuses options that are not an object at all', () => {
    expect(refusal(undefined, true).message).toBe(A2aMessages.optionMismatch('A2aModule', '', undefined, 'an object'));
  });
});

describe('checkA2aExtras', () => {
  it('checks the static options given to forRoot', () => {
    expect(() => checkA2aExtras({ card, jsonRpc: { path: '/rpc' }, rest: false, isGlobal: true }, false)).not.toThrow();
    expect(() => checkA2aExtras({ jsonRpc: { path: '/a2a rpc' } }, false)).toThrow(
      A2aMessages.optionMismatch('A2aModule', 'jsonRpc.path', '/a2a rpc', 'a path, e.g. "/a2a/jsonrpc"'),
    );
    expect(() => checkA2aExtras({ guards: [42] }, false)).toThrow(
      /^A2aModule option guards\[0\] is 42; it must be a class, or a guard/,
    );
    expect(() => checkA2aExtras({ rest: { paht: '/r' } }, false)).toThrow(
      /^A2aModule option rest\.paht is not an option/,
    );
  });

  it('refuses a module option given to forRootAsync next to its factory, where it would be ignored', () => {
    expect(() => checkA2aExtras({ useFactory: () => ({ card }), inject: [], isGlobal: true }, true)).not.toThrow();
    expect(() => checkA2aExtras({ useFactory: () => ({ card }), card }, true)).toThrow(
      /^forRootAsync\(\) option card is not an option/,
    );
  });
});
