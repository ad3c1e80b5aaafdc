import { A2aError } from '../../../libs/a2a/src/errors/a2a.error.js';
import {
  changedConfigurationError,
  configurationChanges,
  sendConfigurationDigest,
} from '../../../libs/a2a/src/engine/send-configuration.digest.js';
import type { SendMessageConfiguration } from '../../../libs/a2a/src/protocol/a2a.types.js';

const push = (url: string, token?: string): SendMessageConfiguration => ({
  taskPushNotificationConfig: { url, ...(token ? { token } : {}) },
});

describe('sendConfigurationDigest / configurationChanges', () => {
  const changes = (first: SendMessageConfiguration | undefined, retry: SendMessageConfiguration | undefined) =>
    configurationChanges(sendConfigurationDigest(first), retry);

  it('finds nothing changed in the same configuration, nor when both have none', () => {
    const config: SendMessageConfiguration = {
      acceptedOutputModes: ['text/plain'],
      returnImmediately: true,
      ...push('https://hooks.example.com/a', 'secret'),
    };
    expect(changes(config, structuredClone(config))).toEqual([]);
    expect(changes(undefined, undefined)).toEqual([]);
  });

  it('treats unset and empty spellings as the same, as another binding may send them', () => {
    expect(changes(undefined, { acceptedOutputModes: [], returnImmediately: false })).toEqual([]);
    expect(
      changes(push('https://h.example/a'), { taskPushNotificationConfig: { url: 'https://h.example/a', token: '' } }),
    ).toEqual([]);
  });

  it('reads accepted output modes as a set of case-insensitive media types', () => {
    expect(
      changes(
        { acceptedOutputModes: ['text/plain', 'application/json'] },
        { acceptedOutputModes: ['Application/JSON', 'text/plain', 'text/plain'] },
      ),
    ).toEqual([]);
    expect(changes({ acceptedOutputModes: ['text/plain'] }, { acceptedOutputModes: ['application/json'] })).toEqual([
      'acceptedOutputModes',
    ]);
    expect(changes(undefined, { acceptedOutputModes: ['text/plain'] })).toEqual(['acceptedOutputModes']);
  });

  it('names returnImmediately when the retry waits otherwise', () => {
    expect(changes({ returnImmediately: true }, {})).toEqual(['returnImmediately']);
    expect(changes(undefined, { returnImmediately: true })).toEqual(['returnImmediately']);
  });

  it('names the push config when its url, token or authentication differ, or when one side has none', () => {
    expect(changes(push('https://h.example/a'), push('https://h.example/b'))).toEqual(['taskPushNotificationConfig']);
    expect(changes(push('https://h.example/a', 'one'), push('https://h.example/a', 'two'))).toEqual([
      'taskPushNotificationConfig',
    ]);
    expect(
      changes(push('https://h.example/a'), {
        taskPushNotificationConfig: {
          url: 'https://h.example/a',
          authentication: { scheme: 'Bearer', credentials: 'x' },
        },
      }),
    ).toEqual(['taskPushNotificationConfig']);
    expect(changes(push('https://h.example/a'), undefined)).toEqual(['taskPushNotificationConfig']);
  });

  it('ignores historyLength, which only shapes the view of the answer', () => {
    expect(changes({ historyLength: 1 }, { historyLength: 50 })).toEqual([]);
  });

  it('names every changed field, in a fixed order', () => {
    expect(
      changes({ returnImmediately: true, acceptedOutputModes: ['text/plain'] }, push('https://h.example/a')),
    ).toEqual(['acceptedOutputModes', 'returnImmediately', 'taskPushNotificationConfig']);
  });

  it('keeps no secret of the push config in the digest', () => {
    const digest = sendConfigurationDigest(push('https://hooks.example.com/a', 'very-secret-token'));
    expect(digest).not.toContain('very-secret-token');
    expect(digest).not.toContain('hooks.example.com');
  });

  it('compares nothing with a digest of another layout (a claim from another release)', () => {
    expect(configurationChanges('c0;x;1;y', { returnImmediately: true })).toEqual([]);
    expect(configurationChanges('', { returnImmediately: true })).toEqual([]);
  });
});

describe('changedConfigurationError', () => {
  it('is InvalidParams with one violation per changed field, naming the message id', () => {
    const error = changedConfigurationError('m-1', ['returnImmediately', 'taskPushNotificationConfig']);
    expect(error).toBeInstanceOf(A2aError);
    expect(error.kind).toBe('InvalidParams');
    expect(error.fieldViolations.map((violation) => violation.field)).toEqual([
      'configuration.returnImmediately',
      'configuration.taskPushNotificationConfig',
    ]);
    expect(error.message).toContain('m-1');
  });
});
