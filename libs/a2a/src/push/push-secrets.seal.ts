import { Logger } from '@nestjs/common';
import type { AuthenticationInfo } from '../protocol/a2a.types.js';
import type { StoredPushConfig } from '../store/task-push.store.js';
import { LEGACY_VERSION, PushSecretsCipher, type PushSecretsCipherOptions } from './push-secrets.cipher.js';
import { PushSecretDecryptionError } from './push.errors.js';
import { PushMessages } from './push.messages.js';

/** What of a config is secret: sent to the webhook, returned only to the config's owner. */
export interface PushSecrets {
  token?: string;
  authentication?: AuthenticationInfo;
}

/** Stored as given (no keys configured): still a JSON envelope, so that keys can be added later and old rows still read. */
const PLAIN = 'plain.';

/**
 * Turns a config's token and authentication into the one opaque string stores keep, and back: encrypted with
 * option `push.secrets` (AES-256-GCM, bound to the config's tenant, owner, task, id and URL), else as given.
 */
export class PushSecretsSeal {
  private readonly logger = new Logger('A2aPush');
  private readonly cipher?: PushSecretsCipher;
  private warnedLegacy = false;

  constructor(options?: PushSecretsCipherOptions) {
    this.cipher = options && new PushSecretsCipher(options);
  }

  get encrypts(): boolean {
    return this.cipher !== undefined;
  }

  seal(secrets: PushSecrets, config: Pick<StoredPushConfig, 'taskId' | 'id' | 'scope' | 'url'>): string {
    const json = JSON.stringify(secrets);
    return this.cipher ? this.cipher.encrypt(json, contextOf(config)) : PLAIN + Buffer.from(json).toString('base64url');
  }

  /** Throws PushSecretDecryptionError when the value was altered, moved to another row, or its key is gone. */
  open(config: StoredPushConfig): PushSecrets {
    const json = config.secrets.startsWith(PLAIN)
      ? Buffer.from(config.secrets.slice(PLAIN.length), 'base64url').toString()
      : this.requireCipher().decrypt(config.secrets, contextOf(config));
    if (!this.warnedLegacy && config.secrets.startsWith(`${LEGACY_VERSION}.`)) {
      this.warnedLegacy = true;
      this.logger.warn(PushMessages.legacySecrets());
    }
    return JSON.parse(json) as PushSecrets;
  }

  private requireCipher(): PushSecretsCipher {
    if (!this.cipher) throw new PushSecretDecryptionError(PushMessages.secretsWithoutKeys());
    return this.cipher;
  }
}

function contextOf(config: Pick<StoredPushConfig, 'taskId' | 'id' | 'scope' | 'url'>) {
  return {
    tenant: config.scope.tenant,
    owner: config.scope.owner,
    taskId: config.taskId,
    configId: config.id,
    url: config.url,
  };
}
