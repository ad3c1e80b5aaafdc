import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { createCipheriv, randomBytes } from 'node:crypto';
import { PushSecretsCipher } from '../../../libs/a2a/src/push/push-secrets.cipher.js';
import { PushSecretsSeal } from '../../../libs/a2a/src/push/push-secrets.seal.js';
import { InvalidPushOptionsError, PushSecretDecryptionError } from '../../../libs/a2a/src/push/push.errors.js';
import { PushMessages } from '../../../libs/a2a/src/push/push.messages.js';

const k1 = randomBytes(32);
const k2 = randomBytes(32);
const row = { tenant: 't1', owner: 'alice', taskId: 'task-1', configId: 'cfg-1', url: 'https://hooks.example/a' };

/** A value as 0.1.0 wrote it: `v1.`, bound to tenant, task and config only. */
function legacyValue(
  plaintext: string,
  key: Buffer,
  keyId: string,
  { tenant = '', taskId, configId }: typeof row,
): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  cipher.setAAD(Buffer.from(`${tenant}\0${taskId}\0${configId}`));
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return ['v1', keyId, iv.toString('base64url'), sealed.toString('base64url')].join('.');
}

/** Flips one bit of the base64url segment `index` of a ciphertext. */
function flip(ciphertext: string, index: number, byte = 0): string {
  const parts = ciphertext.split('.');
  const bytes = Buffer.from(parts[index], 'base64url');
  bytes[byte] ^= 0x01;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('PushSecretsCipher (spec §13.2 "store credentials securely")', () => {
  const cipher = new PushSecretsCipher({ keys: { k1 }, currentKeyId: 'k1' });

  it('round-trips credentials and tokens, unicode and empty included', () => {
    for (const secret of ['Bearer-token.abc', '', 'clé 🔑', 'x'.repeat(4096)]) {
      expect(cipher.decrypt(cipher.encrypt(secret, row), row)).toBe(secret);
    }
  });

  it('writes v2.<keyId>.<iv>.<ciphertext‖tag> with a fresh 96-bit IV each time', () => {
    const a = cipher.encrypt('secret', row);
    const b = cipher.encrypt('secret', row);
    expect(a).toMatch(/^v2\.k1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a.split('.')[2]).not.toBe(b.split('.')[2]);
    expect(Buffer.from(a.split('.')[3], 'base64url')).toHaveLength('secret'.length + 16);
    expect(a).not.toContain('secret');
  });

  it.each([
    ['another tenant', { ...row, tenant: 't2' }],
    ['no tenant', { ...row, tenant: undefined }],
    ['another owner', { ...row, owner: 'mallory' }],
    ['no owner', { ...row, owner: undefined }],
    ['another task', { ...row, taskId: 'task-2' }],
    ['another config', { ...row, configId: 'cfg-2' }],
    ['another URL', { ...row, url: 'https://attacker.example/a' }],
    ['the same ids in other fields', { ...row, tenant: row.taskId, taskId: row.tenant }],
  ])('refuses a value moved to %s', (_what, other) => {
    const sealed = cipher.encrypt('secret', row);
    expect(() => cipher.decrypt(sealed, other)).toThrow(
      new PushSecretDecryptionError(PushMessages.secretTampered('k1')),
    );
  });

  it.each([
    ['the IV', 2, 0],
    ['the ciphertext', 3, 0],
    ['the tag', 3, 'secret'.length + 15],
  ])('refuses a value whose %s was altered', (_what, index, byte) => {
    const sealed = cipher.encrypt('secret', row);
    expect(() => cipher.decrypt(flip(sealed, index, byte), row)).toThrow(PushMessages.secretTampered('k1'));
  });

  it('refuses a value encrypted with a key it does not hold', () => {
    const other = new PushSecretsCipher({ keys: { k9: k2 }, currentKeyId: 'k9' });
    expect(() => cipher.decrypt(other.encrypt('secret', row), row)).toThrow(
      new PushSecretDecryptionError(PushMessages.secretUnknownKey('k9')),
    );
  });

  it('refuses a value whose key id was swapped for one it holds', () => {
    const both = new PushSecretsCipher({ keys: { k1, k2 }, currentKeyId: 'k1' });
    const sealed = both.encrypt('secret', row).replace(/^v2\.k1\./, 'v2.k2.');
    expect(() => both.decrypt(sealed, row)).toThrow(PushMessages.secretTampered('k2'));
  });

  it.each([
    '',
    'secret',
    'v1.k1.abc',
    'v3.k1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA',
    'v1.k1.AAAA.AAAAAAAAAAAAAAAAAAAAAA',
    'v1.k1.AAAAAAAAAAAAAAAA.AAAA',
    'v1.k 1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA',
    'v1.k1.AAAAAAAAAAAAAAAA.AAAA+AAAAAAAAAAAAAAAAA',
  ])('refuses the malformed value %p', (value) => {
    expect(() => cipher.decrypt(value, row)).toThrow(new PushSecretDecryptionError(PushMessages.secretMalformed()));
  });

  it('rotates: new values use the current key, old ones still decrypt', () => {
    const before = cipher.encrypt('old secret', row);
    const rotated = new PushSecretsCipher({ keys: { k1, k2: k2.toString('base64') }, currentKeyId: 'k2' });
    const after = rotated.encrypt('new secret', row);
    expect(rotated.keyIdOf(after)).toBe('k2');
    expect(rotated.decrypt(before, row)).toBe('old secret');
    expect(rotated.decrypt(after, row)).toBe('new secret');
    expect(rotated.needsRotation(before)).toBe(true);
    expect(rotated.needsRotation(after)).toBe(false);
    expect(rotated.keyIdOf('garbage')).toBeUndefined();
  });

  it('takes keys in base64 and base64url', () => {
    const standard = new PushSecretsCipher({ keys: { a: k1.toString('base64') }, currentKeyId: 'a' });
    const urlSafe = new PushSecretsCipher({ keys: { a: k1.toString('base64url') }, currentKeyId: 'a' });
    expect(urlSafe.decrypt(standard.encrypt('s', row), row)).toBe('s');
    expect(cipher.decrypt(standard.encrypt('s', row).replace('v2.a.', 'v2.k1.'), row)).toBe('s');
  });

  it('still decrypts a v1 value (0.1.0) in its row, bound as it was to tenant, task and config only', () => {
    const legacy = legacyValue('old secret', k1, 'k1', row);
    expect(cipher.decrypt(legacy, row)).toBe('old secret');
    expect(cipher.keyIdOf(legacy)).toBe('k1');
    expect(cipher.needsRotation(legacy)).toBe(true);
    expect(() => cipher.decrypt(legacy, { ...row, configId: 'cfg-2' })).toThrow(PushMessages.secretTampered('k1'));
    // A v2 value relabelled v1 is checked against the v1 binding, and fails.
    expect(() => cipher.decrypt(cipher.encrypt('s', row).replace(/^v2\./, 'v1.'), row)).toThrow(
      PushMessages.secretTampered('k1'),
    );
  });

  it.each([
    ['a 16-byte key', { keys: { k: randomBytes(16) }, currentKeyId: 'k' }, PushMessages.invalidKey('k')],
    [
      'a key that is not base64',
      { keys: { k: 'not base64 at all, not 32 bytes either!!!!!' }, currentKeyId: 'k' },
      PushMessages.invalidKey('k'),
    ],
    [
      'a base64 key of the wrong size',
      { keys: { k: randomBytes(31).toString('base64') }, currentKeyId: 'k' },
      PushMessages.invalidKey('k'),
    ],
    ['a key id holding a dot', { keys: { 'k.1': k1 }, currentKeyId: 'k.1' }, PushMessages.invalidKeyId('k.1')],
    ['a current key it does not hold', { keys: { k1 }, currentKeyId: 'k2' }, PushMessages.unknownCurrentKey('k2')],
    ['no keys', { keys: {}, currentKeyId: 'k1' }, PushMessages.unknownCurrentKey('k1')],
  ])('refuses %s at bootstrap', (_what, options, message) => {
    expect(() => new PushSecretsCipher(options)).toThrow(new InvalidPushOptionsError(message));
  });

  it('refuses a bound field holding NUL, which would make the binding ambiguous', () => {
    expect(() => cipher.encrypt('s', { ...row, taskId: 'a\0b' })).toThrow(PushMessages.secretContextHasNul('taskId'));
  });
});

describe('PushSecretsSeal', () => {
  const keys = { keys: { k1 }, currentKeyId: 'k1' };
  const config = {
    taskId: row.taskId,
    id: row.configId,
    scope: { tenant: row.tenant, owner: row.owner },
    url: row.url,
  };

  it("binds a config's secrets to its tenant, owner, task, id and URL", () => {
    const seal = new PushSecretsSeal(keys);
    const secrets = seal.seal({ token: 'tok' }, config);
    expect(seal.open({ ...config, secrets })).toEqual({ token: 'tok' });
    for (const moved of [
      { url: 'https://attacker.example/' },
      { scope: { tenant: row.tenant, owner: 'mallory' } },
      { taskId: 'task-2' },
      { id: 'cfg-2' },
    ]) {
      expect(() => seal.open({ ...config, ...moved, secrets })).toThrow(PushSecretDecryptionError);
    }
  });

  it('opens the v1 values of 0.1.0, warning once that they are not bound to their URL and owner', () => {
    const warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const seal = new PushSecretsSeal(keys);
      const secrets = legacyValue(JSON.stringify({ token: 'old' }), k1, 'k1', row);
      expect(seal.open({ ...config, secrets })).toEqual({ token: 'old' });
      expect(seal.open({ ...config, secrets })).toEqual({ token: 'old' });
      expect(warnings.mock.calls).toEqual([[PushMessages.legacySecrets()]]);
    } finally {
      warnings.mockRestore();
    }
  });
});
