import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { InvalidPushOptionsError, PushSecretDecryptionError } from './push.errors.js';
import { PushMessages } from './push.messages.js';

/** Keys for push secrets at rest; several so they can rotate: new values use `currentKeyId`, old ones keep decrypting. */
export interface PushSecretsCipherOptions {
  /** AES-256 keys by id: 32 bytes, as a Buffer or base64 (standard or URL-safe). Ids: 1–64 of `A-Za-z0-9_-`. */
  readonly keys: Readonly<Record<string, Buffer | string>>;
  readonly currentKeyId: string;
}

/**
 * The row a secret belongs to: bound into the ciphertext, so it cannot be copied into another row, nor its row be
 * pointed at another URL or owner, and still decrypt.
 */
export interface PushSecretContext {
  /** Empty or absent when the agent has no tenants. */
  readonly tenant?: string;
  /** Empty or absent when the agent has no owners (no security). */
  readonly owner?: string;
  readonly taskId: string;
  readonly configId: string;
  /** The webhook the secrets are sent to. */
  readonly url: string;
}

const VERSION = 'v2';
/**
 * The format of 0.1.0: bound to tenant, task and config only, so whoever can write the table may point such a row at
 * another URL. Still read, as refusing them would drop every existing webhook; `PushSecretsSeal` warns once, and a
 * config saved again is written as v2.
 */
export const LEGACY_VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;
const BASE64_KEY = /^(?:[A-Za-z0-9+/]{43}=?|[A-Za-z0-9_-]{43}=?)$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Encrypts push credentials and tokens for storage (spec §13.2): AES-256-GCM with a
 * random 96-bit IV and the AAD `v2\0tenant\0owner\0taskId\0configId\0url`, written `v2.<keyId>.<iv>.<ciphertext‖tag>`
 * in base64url. Values of the `v1` format (AAD `tenant\0taskId\0configId`) are still decrypted.
 * A random IV per value keeps the 2^32 GCM limit per key far away for any realistic number of configs.
 */
export class PushSecretsCipher {
  private readonly keys: ReadonlyMap<string, KeyObject>;
  private readonly currentKeyId: string;

  constructor(options: PushSecretsCipherOptions) {
    const keys = new Map<string, KeyObject>();
    for (const [keyId, key] of Object.entries(options.keys ?? {})) {
      if (!KEY_ID.test(keyId)) throw new InvalidPushOptionsError(PushMessages.invalidKeyId(keyId));
      keys.set(keyId, createSecretKey(keyBytes(keyId, key)));
    }
    if (!keys.has(options.currentKeyId))
      throw new InvalidPushOptionsError(PushMessages.unknownCurrentKey(String(options.currentKeyId)));
    this.keys = keys;
    this.currentKeyId = options.currentKeyId;
  }

  encrypt(plaintext: string, context: PushSecretContext): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentKeyId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(additionalData(context));
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [VERSION, this.currentKeyId, iv.toString('base64url'), sealed.toString('base64url')].join('.');
  }

  /** Throws a PushSecretDecryptionError when the value is malformed, its key is gone, or it was altered or moved. */
  decrypt(ciphertext: string, context: PushSecretContext): string {
    const parts = typeof ciphertext === 'string' ? ciphertext.split('.') : [];
    const [version, keyId, ivText, sealedText] = parts;
    if (
      parts.length !== 4 ||
      (version !== VERSION && version !== LEGACY_VERSION) ||
      !KEY_ID.test(keyId) ||
      !BASE64URL.test(ivText) ||
      !BASE64URL.test(sealedText)
    ) {
      throw new PushSecretDecryptionError(PushMessages.secretMalformed());
    }
    const iv = Buffer.from(ivText, 'base64url');
    const sealed = Buffer.from(sealedText, 'base64url');
    if (iv.length !== IV_BYTES || sealed.length < TAG_BYTES)
      throw new PushSecretDecryptionError(PushMessages.secretMalformed());
    const key = this.keys.get(keyId);
    if (!key) throw new PushSecretDecryptionError(PushMessages.secretUnknownKey(keyId));
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(version === VERSION ? additionalData(context) : legacyAdditionalData(context));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new PushSecretDecryptionError(PushMessages.secretTampered(keyId));
    }
  }

  /** The key a stored value was encrypted with, to find values to re-encrypt after a rotation; undefined if malformed. */
  keyIdOf(ciphertext: string): string | undefined {
    const [version, keyId, ...rest] = ciphertext.split('.');
    return (version === VERSION || version === LEGACY_VERSION) && rest.length === 2 && KEY_ID.test(keyId)
      ? keyId
      : undefined;
  }

  /** Whether a stored value uses a key other than the current one, or the v1 format: either way it is to be re-encrypted. */
  needsRotation(ciphertext: string): boolean {
    return ciphertext.startsWith(`${LEGACY_VERSION}.`) || this.keyIdOf(ciphertext) !== this.currentKeyId;
  }
}

function keyBytes(keyId: string, key: Buffer | string): Buffer {
  const bytes =
    typeof key === 'string'
      ? BASE64_KEY.test(key)
        ? Buffer.from(key, 'base64')
        : undefined
      : Buffer.isBuffer(key)
        ? key
        : undefined;
  if (!bytes || bytes.length !== KEY_BYTES) throw new InvalidPushOptionsError(PushMessages.invalidKey(keyId));
  return bytes;
}

// NUL separates the fields, so no field may hold one: "a\0b"+"c" and "a"+"b\0c" would otherwise bind the same bytes.
function additionalData({ tenant = '', owner = '', taskId, configId, url }: PushSecretContext): Buffer {
  const fields = { tenant, owner, taskId, configId, url };
  checkFields(fields);
  return Buffer.from([VERSION, tenant, owner, taskId, configId, url].join('\0'), 'utf8');
}

function legacyAdditionalData({ tenant = '', taskId, configId }: PushSecretContext): Buffer {
  checkFields({ tenant, taskId, configId });
  return Buffer.from(`${tenant}\0${taskId}\0${configId}`, 'utf8');
}

function checkFields(fields: Record<string, unknown>): void {
  for (const [field, value] of Object.entries(fields)) {
    if (typeof value !== 'string' || value.includes('\0')) throw new TypeError(PushMessages.secretContextHasNul(field));
  }
}
